/**
 * The demo winery of `npm run seed` and `npm run dev`, in a module of its own so that a command
 * line can be checked against it before the seed's modules load.
 */
export const DEMO_WINERY_ID = "3f8a2c1e-5b7d-4e9f-a1c2-d4e5f6a7b8c9";
export const DEMO_CHANNEL_KEY = "demo-webshop";
