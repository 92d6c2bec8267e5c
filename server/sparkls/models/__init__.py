"""Model clients: the Responses WebSocket session (fast tier) and its events."""
