/** A delivery address as a customer sends it (docs/addresses.md), every field filled. */
export function addressBody(overrides: Record<string, unknown> = {}) {
  return {
    label: "Home",
    recipient_name: "Wanjiku Kamau",
    phone: "0712345678",
    street: "Ngong Road, Apt 4B",
    county: "nairobi",
    town: "Kilimani",
    landmark: "Opposite Prestige Plaza",
    coordinates: { lat: -1.2921, lng: 36.8219 },
    ...overrides,
  };
}
