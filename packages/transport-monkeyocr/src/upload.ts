import { FormData } from 'undici';
import type { OcrOptions } from '@pgw/core';

/** Magic bytes → a name and type, since a MonkeyOCR server picks its pipeline from the file extension. */
const FORMATS: ReadonlyArray<{ magic: number[]; fileName: string; mimeType: string }> = [
  { magic: [0x25, 0x50, 0x44, 0x46], fileName: 'document.pdf', mimeType: 'application/pdf' },
  { magic: [0x89, 0x50, 0x4e, 0x47], fileName: 'image.png', mimeType: 'image/png' },
  { magic: [0xff, 0xd8, 0xff], fileName: 'image.jpg', mimeType: 'image/jpeg' },
];
const UNKNOWN_FORMAT = { fileName: 'image', mimeType: 'application/octet-stream' };

export function sniffFormat(image: Uint8Array): { fileName: string; mimeType: string } {
  return FORMATS.find(({ magic }) => magic.every((byte, i) => image[i] === byte)) ?? UNKNOWN_FORMAT;
}

/** The multipart body: the image as `file`, then `options.fields` as text fields. */
export function uploadForm(image: Uint8Array, options: OcrOptions): FormData {
  const fields = options.fields ?? {};
  if (Object.hasOwn(fields, 'file')) throw new TypeError("OcrOptions.fields may not contain 'file': it is the upload itself");
  const sniffed = sniffFormat(image);
  const form = new FormData();
  form.append('file', new Blob([image], { type: options.mimeType ?? sniffed.mimeType }), options.fileName ?? sniffed.fileName);
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}
