// One transaction on a pooled pg client, as the hand-written routes write it: BEGIN, the work, COMMIT,
// or ROLLBACK and rethrow.
export async function inTransaction(pool, work) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}
