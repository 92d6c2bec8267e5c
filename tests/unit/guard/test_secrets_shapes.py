"""Secrets recognised by what they are (guard/secrets/, issue 34): the shapes the issue
found reaching the wire, in the file formats they live in, and the ordinary code that
must come through untouched (each line of the last test was a false positive found on
a real package's sources while the rules were written)."""

import json

import pytest

from sparkls.guard import secret_shaped
from sparkls.guard.secrets import MARKER, redact

# Fake secrets are assembled from pieces so that this file holds no string a secret
# scanner (ours or a code host's) would take for a real credential.
SLACK_PATH = "T0" + "1ABCDEF2/B0" + "3GHIJKL45/" + "q8Wm2LxR7vTz4NcK9pYb3HdF"
SENDGRID = "SG" + "." + "ngeVfQFYQlKU0ufo8x5d1A" + "." + "TwL2iGABf9DHoTf-09kqeF8tAmbihYzrnopKc-1s5cr"
HUGGING_FACE = "hf" + "_" + "QzRwTyUxVbNcMaLsKdJfHgPoIuYtReWqAs"
NPM = "npm" + "_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
STRIPE_RESTRICTED = "rk" + "_live_" + "51HqLyjWDarjtT1zdp7dcXm2"
AWS_ID = "AK" + "IA" + "IOSFODNN7EXAMPL3"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRf" + "iCY8EXAMPLE3a"
BASIC = "ZGVwbG95On" + "M0cjFuZy1wYXNz"  # deploy:s4r1ng-pass
KEY_ID = "089fa42c2eaaa352e07" + "ff13e4d5aaf6732acd6ae"
SALT = "g1oxa" + "zwOgU4e"


def hidden(text: str, secret: str) -> bool:
    out, count = redact(text)
    return count >= 1 and secret not in out and out.count("\n") == text.count("\n")


@pytest.mark.parametrize(
    "text",
    [
        f'SLACK = "https://hooks.slack.com/services/{SLACK_PATH}"\n',
        f"notify:\n  url: https://hooks.slack.com/services/{SLACK_PATH}\n",
        f'{{"webhook": "https://hooks.slack.com/services/{SLACK_PATH}"}}\n',
    ],
)
def test_a_slack_webhook_url_loses_its_path(text):
    """The path of a Slack webhook is the secret, under any name and in any format."""
    assert hidden(text, SLACK_PATH.rsplit("/", 1)[1])


@pytest.mark.parametrize(
    "text",
    [
        'dsn = "host=db.internal port=5432 user=app password=Pz9q!rW2xK dbname=app"\n',
        "DATABASE_DSN=host=db user=app password=Pz9q!rW2xK sslmode=require\n",
        'conn = psycopg.connect("dbname=app user=app password=Pz9q!rW2xK")\n',
    ],
)
def test_the_password_of_a_keyword_dsn_is_hidden(text):
    """`password=` inside a libpq connection string, quoted or not."""
    assert hidden(text, "Pz9q!rW2xK")


@pytest.mark.parametrize(
    "text",
    [
        f'client = boto3.client("s3", "{AWS_ID}", "{AWS_SECRET}")\n',
        f"{AWS_ID},{AWS_SECRET}\n",
        f"[default]\naws_access_key_id = {AWS_ID}\naws_secret_access_key = {AWS_SECRET}\n",
        f'{{"AccessKeyId": "{AWS_ID}", "SecretAccessKey": "{AWS_SECRET}"}}\n',
    ],
)
def test_an_aws_secret_key_next_to_its_key_id_is_hidden(text):
    """The 40-character secret key beside an `AKIA` id, named or not; the id too."""
    assert hidden(text, AWS_SECRET) and AWS_ID not in redact(text)[0]


@pytest.mark.parametrize("token", [SENDGRID, HUGGING_FACE, NPM, STRIPE_RESTRICTED], ids=["sendgrid", "hf", "npm", "rk_live"])
@pytest.mark.parametrize(
    "template",
    ['x = "{t}"\n', "# use {t} for now\n", "value: {t}\n", '{{"v": "{t}"}}\n', "VALUE={t}\n", "f(`{t}`)\n", "<v>{t}</v>\n"],
)
def test_tokens_with_a_known_shape_are_hidden_under_any_name(token, template):
    """SendGrid `SG.`, Hugging Face `hf_`, npm `npm_`, Stripe `rk_live_`: anywhere."""
    assert hidden(template.format(t=token), token)


@pytest.mark.parametrize("token", [SENDGRID, HUGGING_FACE, NPM, STRIPE_RESTRICTED, AWS_ID, "gh" + "p_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"])
def test_secret_shaped_knows_every_token_shape(token):
    """The index drops a word with a token's shape; ordinary identifiers stay."""
    assert secret_shaped(token)
    assert not secret_shaped("completion_create_params") and not secret_shaped("DefaultAsyncHttpx2Client")


@pytest.mark.parametrize(
    "text",
    [
        f'requests.get(url, headers={{"Authorization": "Basic {BASIC}"}})\n',
        f'curl -H "Authorization: Basic {BASIC}" https://api.example.com\n',
        f"headers:\n  Authorization: Basic {BASIC}\n",
    ],
)
def test_basic_authorization_credentials_are_hidden(text):
    """`Basic` credentials (base64 of `user:password`) in a header, any quoting."""
    assert hidden(text, BASIC)


def test_the_word_basic_is_not_a_credential():
    text = 'doc = "Authorization: Basic authentication is not supported"\n'
    assert redact(text) == (text, 0)


@pytest.mark.parametrize(
    "text",
    [
        "# api key: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\n",
        "// token = 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b\n",
        '"""Connect with the key 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b for now."""\n',
        "/* secret: Hk8s2Lq9Zr4Vx7Nm1Pw3 */\n",
    ],
)
def test_a_key_in_a_comment_or_docstring_is_hidden(text):
    """A key named in a comment or a docstring, with `:`, `=` or a space."""
    out, count = redact(text)
    assert count == 1 and "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b" not in out and "Hk8s2Lq9Zr4Vx7Nm1Pw3" not in out


@pytest.mark.parametrize(
    "text",
    [
        f'config :app, AppWeb.Endpoint,\n  live_view: [signing_salt: "{SALT}"]\n',
        f"signing_salt: {SALT}\n",
        f'session:\n  signing_salt: "{SALT}"\n',
    ],
)
def test_a_signing_salt_is_hidden(text):
    """`signing_salt` in YAML and Elixir config (a salt that reads as generated)."""
    assert hidden(text, SALT)


def test_a_notebook_cells_password_is_hidden():
    """A notebook holds code as JSON strings: `\\"` escapes do not hide the value."""
    notebook = json.dumps(
        {"cells": [{"cell_type": "code", "source": ['password = "Tr0ub4dor&3xQ"\n', "db = connect(password)\n"]}]}, indent=1
    )
    assert '\\"Tr0ub4dor&3xQ\\"' in notebook
    assert hidden(notebook, "Tr0ub4dor&3xQ")


@pytest.mark.parametrize(
    "text",
    [
        f'{{\n  "type": "service_account",\n  "private_key_id": "{KEY_ID}",\n  "client_email": "x@p.iam.gserviceaccount.com"\n}}\n',
        f"private_key_id: {KEY_ID}\n",
        f'<add key="private_key_id" value="{KEY_ID}" />\n',
    ],
)
def test_a_service_accounts_private_key_id_is_hidden(text):
    assert hidden(text, KEY_ID)


@pytest.mark.parametrize(
    "text",
    [
        "- name: DB_PASSWORD\n  value: Qx7!pLm2Zr\n",
        "apiVersion: v1\nkind: Secret\ndata:\n  extra: YWRtaW46cGFzc3dvcmQ=\n",
        "machine api.example.com login me password Qx7pLm2Zr9\n",
        "curl -u deploy:Qx7pLm2Zr9 https://api.example.com\n",
        "url = 'https://deploy:Qx7pLm2Zr9@db.internal/app'\n",
        "fetch(`/v1/items?limit=10&access_token=Qx7pLm2Zr9Kd4Tn8`)\n",
        'System.setProperty("APP_TOKEN", "Qx7pLm2Zr9Kd4Tn8")\n',
        '<password>Qx7pLm2Zr9</password>\n',
        "ENV DB_PASSWORD=Qx7pLm2Zr9\n",
        "db.password=Qx7pLm2Zr9\n",
        '$token .= "Qx7pLm2Zr9Kd4Tn8";\n',
        'if ("Qx7pLm2Zr9" == password) {\n',
        'if "Qx7pLm2Zr9"==password:\n',
        "if ('Qx7pLm2Zr9'!==this.apiToken) {\n",
    ],
    ids=["k8s env", "k8s Secret", "netrc", "curl -u", "url", "query", "setProperty", "xml", "Dockerfile", "properties",
         "php .=", "reversed comparison", "reversed, no spaces", "reversed !=="],  # fmt: skip
)
def test_secret_named_values_in_other_syntaxes(text):
    """Name/value pairs, manifests, `.netrc`, flags, URLs, XML, Dockerfiles, properties."""
    out, count = redact(text)
    assert count >= 1 and not any(s in out for s in ("Qx7!pLm2Zr", "Qx7pLm2Zr9", "YWRtaW46cGFzc3dvcmQ="))


@pytest.mark.parametrize(
    "line",
    [
        'if token == "integer":',
        'SENSITIVE = ("api-key", "x-api-key", "proxy-authorization")',
        '_AWS_SIGNING_HEADERS = ("authorization", "x-amz-content-sha256", "x-amz-date")',
        "FS_IOC_ADD_ENCRYPTION_KEY = 0x80506617",
        '"csISO11SwedishForNames": enc21,',
        '"md5WithRSAEncryption-CmsOID": MD5WITHRSAENCRYPTION_CMSOID,',
        'sessionCredentials = "github.com/jcmturner/gokrb5/v8/sessionCredentials"',
        'cl := client.NewWithPassword("testuser1", "TEST.GOKRB5", pw, c)',
        "    strings, array of tokens, or array of token arrays.",
        "# Record received evidence but defer effects until all server items pass preflight.",
        '"If that\'s your intention, pass `allow_module_level=True`. "',
        "ROOT_KEY = '__root__'",
        "m = Model(base64_bytes=b'VGhpcyBpcyB0aGUgd2F5')",
        '__all__ = ["Credentials", "AsyncCredentials"]',
        '"AsyncCredentials": (".credentials", "AsyncCredentials"),',
        "parser.encoding = yaml_UTF16LE_ENCODING",
        '"Idempotency-Key": f"stainless-python-retry-{uuid4()}",',
        "if secret.startswith(\"whsec_\"):",
        "//	token          = 1*tchar",
        "github.com/spf13/afero v1.11.0 h1:WJQKhtpdm3v2IzqG8VMqrr6Rf3UYpEF239Jy9wNepM8=",
        '"integrity": "sha512-3KHNvKQ5BDn2ZI2NCbCtvW6X0j0QOdTvY8G2qpHfyv1ecOmqQ1xgyCWXsx9CK3k4vEVWtuTUzX0n2bRsH3yC2Q==",',
        "id='call_wKayJlcYV12NiadiZuJXxcfx',",
        "credentials: this._input.credentials || 'same-origin',",
        "      credentials: 'same-origin', // TODO",
        'const AuthProxyUserKey = "proxy_user"',
        """      '"8-O2uVAFaQ1rZvlKLT14RnuvjPIdg"')""",
        """      'W/"a-JBiXf7GyzxwcrxY4hVXUwa7tmks"')""",
        'key: "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE1Olb3zMAFFxXKHiIkQO5cJ3Yhl5i6UPp+IhuteBJbuHcA5UogKo0EWtlWwW6KSaKoTNEYL7JlCQiVnkhBktUgg=="',
    ],
)
def test_ordinary_code_found_in_real_packages_is_untouched(line):
    """Code and data from real packages that an earlier rule took for a secret."""
    assert redact(line + "\n") == (line + "\n", 0)


def test_a_private_key_written_in_a_test_is_still_hidden():
    """A test's private key is hidden like any other: sparkls cannot tell it is a test's."""
    body = "MIIEowIBAAKCAQEAvY3c2p6JmTq1kq7Hq9r1f0n8mW2t6o1Yl7B3e0xQw9Zk4T5u"
    out, count = redact(f"const key = `-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----`\n")
    assert count == 1 and body not in out and MARKER in out
