"""Redaction of secret-looking strings (guard/secrets.py)."""

import pytest

from sparkls.guard.secrets import MARKER, redact

# Fake secrets are assembled from pieces so that this file holds no string a secret
# scanner (ours or a code host's) would take for a real credential.
AWS_KEY_ID = "AK" + "IA" + "IOSFODNN7EXAMPL3"
AWS_SESSION_KEY_ID = "AS" + "IA" + "Z7Q2W3E4R5T6Y7U8"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
GITHUB_BODY = "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
OPENAI_BODY = "T3BlbkFJ" + "abcdEFGH1234ijklMNOP5678qrst"
GOOGLE_KEY = "AI" + "za" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
JWT = (
    "ey" + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
KEY_LINES = [
    "MIIEowIBAAKCAQEAvY3c2p6JmTq1kq7Hq9r1f0n8mW2t6o1Yl7B3e0xQw9Zk4T5u",
    "0dM8nJ3qV1b2c5X7yZ0aB4cD6eF8gH0iJ2kL4mN6oP8qR0sT2uV4wX6yZ8aB0cD2",
    "eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ4aB6cD8eF0gH2iJ4kL6mN8oP0qR2s==",
]


def private_key(label: str, indent: str = "") -> str:
    begin, end = f"-----BEGIN {label}PRIVATE KEY-----", f"-----END {label}PRIVATE KEY-----"
    return "\n".join(indent + line for line in [begin, *KEY_LINES, end])


def redacted_lines(text: str) -> list[str]:
    return redact(text)[0].split("\n")


@pytest.mark.parametrize("label", ["RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ", ""])
def test_private_key_block_body_is_redacted(label):
    """Every kind of PEM private key loses its body and nothing else."""
    text = f"before\n{private_key(label)}\nafter\n"
    out, count = redact(text)
    assert count == 1
    assert not any(line in out for line in KEY_LINES)
    assert out.split("\n") == [
        "before",
        f"-----BEGIN {label}PRIVATE KEY-----",
        MARKER,
        "",
        "",
        f"-----END {label}PRIVATE KEY-----",
        "after",
        "",
    ]


def test_private_key_keeps_indentation_inside_yaml():
    """An indented key (a YAML block) keeps its indentation on the marker line."""
    out = redacted_lines("tls:\n  key: |\n" + private_key("RSA ", indent="    "))
    assert out[3] == "    " + MARKER


def test_private_key_with_headers_keeps_the_headers():
    """An encrypted PEM's Proc-Type and DEK-Info lines stay; its body goes."""
    text = "\n".join(
        [
            "-----BEGIN RSA PRIVATE KEY-----",
            "Proc-Type: 4,ENCRYPTED",
            "DEK-Info: AES-128-CBC,3F1A2B3C4D5E6F708192A3B4C5D6E7F8",
            "",
            *KEY_LINES,
            "-----END RSA PRIVATE KEY-----",
        ]
    )
    out, count = redact(text)
    assert count == 1
    assert out.split("\n")[1:5] == text.split("\n")[1:4] + [MARKER]


def test_pgp_private_key_block_is_redacted():
    """A PGP armored private key loses its body and checksum, keeping its header."""
    text = "\n".join(
        [
            "-----BEGIN PGP PRIVATE KEY BLOCK-----",
            "Version: GnuPG v2",
            "",
            *KEY_LINES,
            "=Xy9z",
            "-----END PGP PRIVATE KEY BLOCK-----",
        ]
    )
    out, count = redact(text)
    assert count == 1
    assert out.split("\n")[1:7] == ["Version: GnuPG v2", "", MARKER, "", "", ""]


def test_private_key_on_one_line_with_escapes():
    """A JSON service-account key (`\\n` escapes on one line) loses its body."""
    body = "\\n".join(KEY_LINES)
    text = (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + body
        + '\\n-----END PRIVATE KEY-----\\n"}'
    )
    out, count = redact(text)
    assert count == 1
    assert out == (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        + MARKER
        + '\\n-----END PRIVATE KEY-----\\n"}'
    )


def test_private_key_in_concatenated_string_literals():
    """A key written as one quoted literal per line keeps the quotes and loses the body."""
    lines = ['KEY = ("-----BEGIN EC PRIVATE KEY-----\\n"']
    lines += [f'       "{line}\\n"' for line in KEY_LINES]
    lines += ['       "-----END EC PRIVATE KEY-----\\n")']
    out = redacted_lines("\n".join(lines))
    assert out[1:4] == [f'       "{MARKER}\\n"', '       "\\n"', '       "\\n"']


def test_private_key_cut_after_begin_is_redacted():
    """An excerpt that ends inside a key still hides the part it shows."""
    text = "x = 1\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(KEY_LINES[:2])
    out, count = redact(text)
    assert count == 1
    assert out.split("\n")[2:] == [MARKER, ""]


def test_private_key_cut_before_end_is_redacted():
    """An excerpt that starts inside a key still hides the part it shows."""
    text = "\n".join(KEY_LINES[1:]) + "\n-----END OPENSSH PRIVATE KEY-----\nx = 1\n"
    out, count = redact(text)
    assert count == 1
    assert out.split("\n")[:2] == [MARKER, ""]


def test_pem_marker_constants_are_untouched():
    """A PEM parser's marker constants are code, not a key."""
    text = (
        'BEGIN = "-----BEGIN RSA PRIVATE KEY-----"\n'
        'END = "-----END RSA PRIVATE KEY-----"\n'
        "def parse(text):\n"
        "    return text\n"
    )
    assert redact(text) == (text, 0)


def test_private_key_with_crlf_line_endings():
    """Windows line endings survive the redaction of a key."""
    text = private_key("RSA ").replace("\n", "\r\n") + "\r\n"
    out, count = redact(text)
    assert count == 1
    assert out.split("\r\n")[1:3] == [MARKER, ""]


@pytest.mark.parametrize(
    "token",
    [
        AWS_KEY_ID,
        AWS_SESSION_KEY_ID,
        "gh" + "p_" + GITHUB_BODY,
        "gh" + "o_" + GITHUB_BODY,
        "gh" + "u_" + GITHUB_BODY,
        "gh" + "s_" + GITHUB_BODY,
        "gh" + "r_" + GITHUB_BODY,
        "github" + "_pat_" + "11ABCDEFG0" + GITHUB_BODY + "_" + GITHUB_BODY,
        "sk" + "-" + OPENAI_BODY,
        "sk" + "-proj-" + OPENAI_BODY + "-" + OPENAI_BODY,
        "xo" + "xb-" + "1234567890123-1234567890123-" + GITHUB_BODY[:24],
        "xo" + "xp-" + "1234567890123-" + GITHUB_BODY[:24],
        GOOGLE_KEY,
        JWT,
    ],
    ids=[
        "aws-akia",
        "aws-asia",
        "ghp",
        "gho",
        "ghu",
        "ghs",
        "ghr",
        "github-pat",
        "openai",
        "openai-proj",
        "slack-bot",
        "slack-user",
        "google",
        "jwt",
    ],
)
def test_known_token_shapes_are_redacted_anywhere(token):
    """A token with a known shape is redacted even under an innocent name."""
    text = f'headers = {{"X-Thing": "{token}"}}\nprint(headers)\n'
    out, count = redact(text)
    assert (out, count) == (text.replace(token, MARKER), 1)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('password = "hunter22"', 'password = "[REDACTED]"'),
        ("passwd: 'Tr0ub4dor&3'", "passwd: '[REDACTED]'"),
        ('secret = "s3cr3t-value"', 'secret = "[REDACTED]"'),
        ('api_key = "abc123def456"', 'api_key = "[REDACTED]"'),
        ('  apiKey: "abc123def456",', '  apiKey: "[REDACTED]",'),
        ('token = "abcdef123456"', 'token = "[REDACTED]"'),
        ('{"password": "hunter22"}', '{"password": "[REDACTED]"}'),
        ("{'client_secret': 'hunter22'}", "{'client_secret': '[REDACTED]'}"),
        ('config["db_password"] = "hunter22"', 'config["db_password"] = "[REDACTED]"'),
        ('password: str = "hunter22"', 'password: str = "[REDACTED]"'),
        ('dbPassword := "hunter22"', 'dbPassword := "[REDACTED]"'),
        ("'password' => 'hunter22',", "'password' => '[REDACTED]',"),
        ('const char *password = "hunter22";', 'const char *password = "[REDACTED]";'),
        ('if password == "hunter22":', 'if password == "[REDACTED]":'),
        ("PASSWORD=hunter22", "PASSWORD=[REDACTED]"),
        ("export GITHUB_TOKEN=abc123def456", "export GITHUB_TOKEN=[REDACTED]"),
        ("  db_password: hunter22", "  db_password: [REDACTED]"),
        ("SECRET_KEY = django-insecure-1x2y3z", "SECRET_KEY = [REDACTED]"),
        ("aws_secret_access_key = " + AWS_SECRET, "aws_secret_access_key = [REDACTED]"),
        ('"SecretAccessKey": "' + AWS_SECRET + '"', '"SecretAccessKey": "[REDACTED]"'),
    ],
)
def test_assigned_secret_is_redacted_and_the_name_kept(line, expected):
    """A literal assigned to a secret-ish name is replaced; the name stays."""
    assert redact(line) == (expected, 1)


def test_password_in_a_connection_string():
    """`Password=...;` inside a connection string is redacted."""
    text = 'conn = "Server=db;Database=app;User Id=sa;Password=hunter22;"'
    assert redact(text) == (text.replace("hunter22", MARKER), 1)


def test_token_in_a_url_query():
    """`?access_token=...` in a URL is redacted up to the next parameter."""
    text = 'url = f"https://api.example.com/v1?access_token=abc123def456&page={page}"'
    assert redact(text) == (text.replace("abc123def456", MARKER), 1)


def test_password_in_a_url():
    """The password of `scheme://user:password@host` is redacted."""
    text = 'DATABASE_URL = "postgres://app:s3cretpw@db.internal:5432/app"'
    assert redact(text) == (text.replace("s3cretpw", MARKER), 1)


def test_bearer_token_is_redacted():
    """The token after `Bearer ` is redacted, the scheme kept."""
    text = 'headers = {"Authorization": "Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0"}'
    assert redact(text) == (text.replace("9f8e7d6c5b4a39281706f5e4d3c2b1a0", MARKER), 1)


@pytest.mark.parametrize(
    "line",
    [
        'password = ""',
        "password = None",
        "password = get_password()",
        "password = self.password",
        'password = os.environ["DB_PASSWORD"]',
        'token_type = "bearer"',
        "    password: str",
        "    api_key: SecretStr | None = None",
        'tokenizer = "cl100k_base_v2"',
        "max_tokens = 100000",
        'monkey = "banana-split-42"',
        'eos_token = "<|endoftext|>"',
        'password = "changeme"',
        'password = "your-password-here"',
        'password = "********"',
        'password = "${DB_PASSWORD}"',
        'password = f"{prefix}{suffix}"',
        'password = "short"',
        'TOKEN = "token"',
        'API_KEY = "api_key"',
        'api_key_env = "OPENAI_API_KEY"',
        'token = "GITHUB_TOKEN"',
        'label = "Enter your password"',
        'password_help = "Use at least 12 characters"',
        'error = {"password": "Too short, try again"}',
        'TOKEN_RE = r"[A-Za-z_][A-Za-z0-9_]*"',
        'private_key = "keys/server.pem"',
        'Token: "#cccccc",',
        'EMULATOR_KEY = "sk-test-emulator-key"',
        "url = 'https://user:password@example.com/'",
        "def login(password: str, token: str | None = None) -> bool:",
    ],
)
def test_ordinary_code_is_untouched(line):
    """Code that only mentions secrets is left exactly as it is."""
    assert redact(line + "\n") == (line + "\n", 0)


def test_line_count_is_preserved():
    """Redaction never adds or removes a line."""
    text = "\n".join(
        ["import os", 'password = "hunter22"', private_key("RSA "), "t = '" + JWT + "'", ""]
    )
    out, count = redact(text)
    assert count == 3
    assert len(out.split("\n")) == len(text.split("\n"))


def test_a_token_assigned_to_a_secret_name_counts_once():
    """A known token in a secret-ish assignment is one redaction, not two."""
    text = 'OPENAI_API_KEY = "sk-' + OPENAI_BODY + '"'
    assert redact(text) == ('OPENAI_API_KEY = "[REDACTED]"', 1)


def test_count_is_the_number_of_secrets():
    """Each secret is counted once."""
    text = f'a = "{AWS_KEY_ID}"\nb = "{GOOGLE_KEY}"\npassword = "hunter22"\nname = "x"\n'
    assert redact(text)[1] == 3


def test_text_around_a_secret_keeps_non_ascii_characters():
    """Emoji and CJK text before and after a secret come through intact."""
    text = f'# 密码 🔑\npassword = "hunter22"  # ✓\nkey = "{AWS_KEY_ID}" # 日本\n'
    out, count = redact(text)
    assert count == 2
    assert out == (
        '# 密码 🔑\npassword = "[REDACTED]"  # ✓\nkey = "[REDACTED]" # 日本\n'
    )


def test_text_without_secrets_comes_back_unchanged():
    """Ordinary code is returned as it was, with a count of zero."""
    text = "def add(a, b):\n    return a + b\n"
    assert redact(text) == (text, 0)
