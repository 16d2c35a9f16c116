/**
 * The MCP tools, by name: published in /v1/capabilities. McpToolsService refuses to start with a tool
 * list that differs, so the catalog cannot drift from the server.
 */
export const MCP_TOOL_NAMES = [
  'get_capabilities',
  'validate_render',
  'preview_frame',
  'preview_contact_sheet',
  'render',
  'get_job',
  'list_renders',
  'list_tasks',
  'cancel_job',
  'create_upload',
  'upload_from_url',
  'transcribe',
  'get_transcript',
  'get_captions',
  'create_project',
  'get_project',
  'list_projects',
  'edit_project',
  'render_project',
  'extract_brand_kit',
  'get_brand_kit',
  'list_brand_kits',
  'create_batch',
  'get_batch',
  'list_batches',
  'cancel_batch',
] as const;
