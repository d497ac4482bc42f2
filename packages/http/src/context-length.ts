/**
 * Whether a rejected request's body says the prompt does not fit the model's context window. Each
 * pattern is the form one common server answers with; the words are read only here (see failure.ts).
 */
const CONTEXT_LENGTH_PATTERNS: readonly RegExp[] = [
  // OpenAI, Azure OpenAI, Groq (the error code; also inside messages of relays that repeat it).
  /context_length_exceeded/i,
  // OpenAI, vLLM, DeepSeek, OpenRouter, Mistral, Fireworks: "This model's maximum context length is 8192 tokens…".
  /maximum context length/i,
  // vLLM (newer): "The decoder prompt (length 9000) is longer than the maximum model length of 8192."
  /longer than the maximum model length/i,
  // SGLang: "The input (9000 tokens) is longer than the model's context length (8192 tokens)."
  /longer than the model's context length/i,
  // llama.cpp server: type `exceed_context_size_error`, "the request exceeds the available context size…".
  /exceed_context_size_error|exceeds the available context size/i,
  // Hugging Face TGI: "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096."
  /`inputs` tokens \+ `max_new_tokens` must be/i,
  // Anthropic's OpenAI-compatible endpoint: "prompt is too long: 210000 tokens > 200000 maximum".
  /prompt is too long/i,
  // Alibaba DashScope (Qwen) compatible mode: "Range of input length should be [1, 30720]".
  /range of input length should be/i,
  // Google Gemini compatible endpoint: "The input token count (N) exceeds the maximum number of tokens allowed (M)."
  /input token count \(\d+\) exceeds the maximum number of tokens/i,
];

export function saysContextLengthExceeded(body: string): boolean {
  return CONTEXT_LENGTH_PATTERNS.some((pattern) => pattern.test(body));
}
