"""From the model's reply to safe, minimal edits: parse, validate, diff."""
