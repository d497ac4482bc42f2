// placeholder: filled by the telemetry issue (NoopRecorder, MemoryRecorder)
export {};
