export * from "./api-keys";
export * from "./commerce-sessions";
export * from "./contacts";
export * from "./coupons";
export * from "./orders";
export * from "./receipts";
export * from "./wineries";
