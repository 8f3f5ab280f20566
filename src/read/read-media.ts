// Read's image and PDF branches: the bytes go back as an image block or an embedded resource, within limits.
import { pathToFileURL } from 'node:url';
import type { Config } from '../config.js';
import { ToolError } from '../errors.js';
import { formatBytes } from '../text/format-bytes.js';
import type { ToolOutput } from '../tool-output.js';

const PDF_MAGIC = Buffer.from('%PDF-');

export const isPdf = (bytes: Buffer): boolean => bytes.subarray(0, 5).equals(PDF_MAGIC);

/** @throws ToolError TOO_LARGE when `bytes` are over `limit`. */
function checkSize(what: 'Image' | 'PDF', bytes: Buffer, limit: number): void {
  if (bytes.length > limit) {
    const message = `${what} is too large to return (${formatBytes(bytes.length)}; limit ${formatBytes(limit)}).`;
    throw new ToolError('TOO_LARGE', message, { size: bytes.length });
  }
}

/** An image as an image content block. @throws ToolError TOO_LARGE over read.maxImageBytes. */
export function readImage(display: string, bytes: Buffer, mimeType: string, config: Config): ToolOutput {
  checkSize('Image', bytes, config.read.maxImageBytes);
  return {
    text: `Image ${display} (${mimeType}, ${formatBytes(bytes.length)})`,
    structured: { file_path: display, type: 'image', mime_type: mimeType, size: bytes.length },
    extra: [{ type: 'image', data: bytes.toString('base64'), mimeType }],
  };
}

/**
 * A PDF as an embedded resource (the whole document: page ranges need a PDF tool this server lacks).
 * @throws ToolError INVALID_INPUT with `pages`, TOO_LARGE over read.maxPdfBytes.
 */
export function readPdf(
  display: string,
  realPath: string,
  bytes: Buffer,
  pages: string | undefined,
  config: Config,
): ToolOutput {
  if (pages !== undefined) {
    throw new ToolError(
      'INVALID_INPUT',
      'Reading PDF page ranges needs a PDF tool, and none is available in this server. Call Read without "pages" to get the whole PDF.',
    );
  }
  checkSize('PDF', bytes, config.read.maxPdfBytes);
  return {
    text: `PDF ${display} (${formatBytes(bytes.length)}) attached as an embedded resource.`,
    structured: { file_path: display, type: 'pdf', size: bytes.length },
    extra: [
      {
        type: 'resource',
        resource: { uri: pathToFileURL(realPath).href, mimeType: 'application/pdf', blob: bytes.toString('base64') },
      },
    ],
  };
}
