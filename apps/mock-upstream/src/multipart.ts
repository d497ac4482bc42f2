import type { RecordedFile } from './types.js';

export interface ParsedForm {
  fields: Record<string, string>;
  files: Record<string, RecordedFile & { bytes: Uint8Array }>;
}

/** Parses a multipart/form-data (or urlencoded) body with the web `Request` API; undefined when it is not a form. */
export async function parseForm(body: Buffer, contentType: string | undefined): Promise<ParsedForm | undefined> {
  if (!contentType) return undefined;
  let form: FormData;
  try {
    form = await new Request('http://mock.local/', { method: 'POST', headers: { 'content-type': contentType }, body }).formData();
  } catch {
    return undefined;
  }
  const parsed: ParsedForm = { fields: {}, files: {} };
  for (const [name, value] of form.entries()) {
    if (typeof value === 'string') {
      parsed.fields[name] = value;
    } else {
      parsed.files[name] = {
        fileName: value.name,
        type: value.type,
        size: value.size,
        bytes: new Uint8Array(await value.arrayBuffer()),
      };
    }
  }
  return parsed;
}
