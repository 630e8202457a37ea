-- Why a tool call failed, where the UI acts on it (`ToolFailure`, snake_case): `server_offline` when
-- the call's MCP server was offline and nothing ran. NULL for every other call.
ALTER TABLE tool_calls ADD COLUMN failure TEXT;

-- Calls recorded before the column existed said so only in their text, exactly
-- "Error: server `<server>` is offline"; they get the typed marker.
UPDATE tool_calls SET failure = 'server_offline'
WHERE is_error = 1
  AND json_extract(origin, '$.kind') = 'mcp'
  AND json_array_length(output) = 1
  AND json_extract(output, '$[0].type') = 'text'
  AND json_extract(output, '$[0].text') = 'Error: server `' || json_extract(origin, '$.server') || '` is offline';
