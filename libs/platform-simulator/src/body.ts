import type { UploadedFile } from './cdn';
import { errors } from './errors';

/** A request body decoded by media type. */
export interface ParsedBody {
  /** `application/json`, `multipart/form-data`, `application/x-www-form-urlencoded`, or undefined when empty. */
  mediaType?: string;
  /** What `RecordedCall.body` shows: JSON value, `{ fields, files }` for multipart, form fields for urlencoded. */
  recorded: unknown;
  /** The JSON payload (`payload_json` for multipart), if any. */
  json?: unknown;
  /** Non-file fields of a multipart or urlencoded body. */
  fields: Record<string, string>;
  files: UploadedFile[];
}

/**
 * Decodes a raw request body by its Content-Type. Multipart bodies are parsed by the platform's own
 * `Request#formData()`. Throws 50109 for malformed JSON.
 */
export async function parseBody(raw: Buffer | undefined, contentType: string | undefined): Promise<ParsedBody> {
  const empty: ParsedBody = { recorded: undefined, fields: {}, files: [] };
  if (!raw || raw.length === 0) return empty;
  const mediaType = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (mediaType === 'multipart/form-data') {
    const form = await new Request('http://fake.local/', {
      method: 'POST',
      headers: { 'content-type': contentType! },
      body: new Uint8Array(raw),
    }).formData();
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') fields[field] = value;
      else
        files.push({
          field,
          filename: value.name,
          contentType: value.type || 'application/octet-stream',
          size: value.size,
          data: Buffer.from(await value.arrayBuffer()),
        });
    }
    let json: unknown;
    if (fields.payload_json !== undefined) {
      try {
        json = JSON.parse(fields.payload_json);
      } catch {
        throw errors.invalidJson();
      }
    }
    return { mediaType, recorded: { fields, files }, json, fields, files };
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    const fields = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
    return { mediaType, recorded: fields, fields, files: [] };
  }
  try {
    const json = JSON.parse(raw.toString('utf8'));
    return { mediaType: 'application/json', recorded: json, json, fields: {}, files: [] };
  } catch {
    throw errors.invalidJson();
  }
}
