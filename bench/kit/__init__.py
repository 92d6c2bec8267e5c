"""What the benchmarks and the tests share, so that bench/ imports nothing from tests/:
the guard's seal over a script's own words (sealing.py), a model peer and its stream
variants (peer/), the emulator held to the official SDK (sdk_conformance.py), the
table of reply shapes real models produce (reply_shapes_table.py), the real-edit corpus
(real_edits.py, its data in tests/fixtures/real_edits/), the patch drift table
(patch_drift_table.py), the secrets corpus (secrets_corpus.py, its data in
tests/fixtures/secrets/), a server that keeps the index (keeper_server.py), and the
drivers of real editors (editors/). Tests import
these; none of them asserts anything by itself.
"""
