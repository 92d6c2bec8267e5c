"""An independent model peer: streams built from the official `openai` SDK's own types,
replayed over a loopback WebSocket / HTTP server that is not the project's emulator."""
