/** The simulator's sign-in page: type any email; untick "verified" to act as an address Google has not checked. */
const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function loginPage(uid: string, clientId: string, loginHint: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in - Google simulator</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem}
label{display:block;margin:.75rem 0}input[type=email]{width:100%;padding:.4rem}button{padding:.5rem 1rem}</style></head>
<body>
<h1>Sign in</h1>
<p>Google simulator (local, for development): any email signs in. Client <code>${escapeHtml(clientId)}</code>.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Email <input type="email" name="email" id="sim-email" required autofocus value="${escapeHtml(loginHint)}"></label>
<label><input type="checkbox" name="verified" id="sim-verified" value="1" checked> Email verified by Google</label>
<button type="submit" id="sim-sign-in">Continue</button>
</form>
</body>
</html>`;
}
