export * from "./api-keys";
export * from "./attributes";
export * from "./contacts";
export * from "./customer-classes";
export * from "./orders";
export * from "./products";
export * from "./receipts";
export * from "./wineries";
