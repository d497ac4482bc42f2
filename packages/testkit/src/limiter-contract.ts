// placeholder: filled by its issue
export {};
