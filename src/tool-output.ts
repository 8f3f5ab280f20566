// ToolOutput: what a tool's plain function returns before it is adapted to MCP (no SDK types here).

/** An extra content block after the text: an image, or an embedded resource (PDFs). */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; blob: string } };

/** A successful tool outcome; failures are thrown as ToolError. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
  /** Extra content blocks (images, resources) after the text. */
  extra?: ContentBlock[];
}
