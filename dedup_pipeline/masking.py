"""Passwords out of URLs and messages quoting them: below the configuration and the stores,
which both mask what they show (config.py re-exports `mask_url`)."""

import re

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_QUERY_PASSWORD = re.compile(r"(?i)((?:password|passwd|pwd)=)[^&;]*")


def mask_url(text: str) -> str:
    """A URL, or a message quoting URLs, with every password replaced by ***: safe for
    logs, error messages and reports. A text that starts with a URL is masked as one URL,
    spaces and all; in other text each URL ends at a space."""
    if _SCHEME.match(text):
        text = _mask_userinfo(text)
    else:
        text = re.sub(_SCHEME.pattern + r"\S*", lambda m: _mask_userinfo(m.group()), text)
    return _QUERY_PASSWORD.sub(r"\1***", text)


def _mask_userinfo(url: str) -> str:
    """`scheme://user:***@host...`. The password ends at the *last* @: people write / : # @ %
    unescaped (SQLAlchemy splits `p@ss` at the first @, pymongo refuses them), so a URL
    parser would show part of it; an @ after the host only hides more than needed."""
    scheme, _, rest = url.partition("://")
    userinfo, at, hosts = rest.rpartition("@")
    user, colon, _ = userinfo.partition(":")
    return f"{scheme}://{user}:***@{hosts}" if at and colon else url
