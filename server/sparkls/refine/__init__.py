"""Refine: revise the last sparkls edit of a document by continuing its response.

`record.py` keeps each document's last edit and finds its region in the text as it is
now; `prompt.py` writes the follow-up turn; `service.py` sends it (continuing the
response over the warm socket that served it, or resending the conversation) and
turns the reply into one versioned edit.
"""
