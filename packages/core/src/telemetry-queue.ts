// placeholder: filled by the telemetry issue (bounded batching queue shared by the SQLite and Postgres recorders)
export {};
