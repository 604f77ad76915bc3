"""Application passwords: how they are generated and how their stored form is made.

Application passwords are 24 random characters from ``secrets`` (about 143 bits), so
a salted SHA-256 is enough to keep the stored form useless to a thief: key stretching
only protects guessable secrets, and it would cost every authenticated request
milliseconds. Comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string

PASSWORD_ALPHABET = string.ascii_letters + string.digits
PASSWORD_LENGTH = 24


def generate_password() -> str:
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


def new_salt() -> str:
    return secrets.token_hex(16)


def hash_secret(secret: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{secret}".encode()).hexdigest()


def matches(secret: str, salt: str, stored_hash: str) -> bool:
    """Whether ``secret`` is the one stored as ``(salt, stored_hash)``, in constant time."""
    return hmac.compare_digest(hash_secret(secret, salt), stored_hash)
