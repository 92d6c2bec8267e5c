"""Explain: the fast tier's account of the selected code, in Markdown, shown to the user.

- `service`: the request (a `Draft`: the selection, with the file's imports and the
  definitions it uses, as the fast edit sends them) and the answer (`Explanation`);
- `handlers`: the LSP face (`FEATURE`): the "Spark: Explain" code action on a
  selection and `sparkls.explain`; the answer opens as a document, or comes as a message.
"""
