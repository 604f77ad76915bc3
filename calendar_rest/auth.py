"""HTTP Basic authentication with WordPress-style application passwords.

Application passwords are 24 random characters from ``secrets`` (about 143 bits), so
a salted SHA-256 is enough to keep the stored form useless to a thief: key stretching
only protects guessable secrets, and it would cost every authenticated request
milliseconds. Comparison is constant-time.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import hmac
import secrets
import string

from werkzeug.datastructures import Authorization

from .errors import RestError
from .models import ApplicationPassword, User

PASSWORD_ALPHABET = string.ascii_letters + string.digits
PASSWORD_LENGTH = 24


def generate_application_password() -> str:
    return "".join(secrets.choice(PASSWORD_ALPHABET) for _ in range(PASSWORD_LENGTH))


def hash_secret(secret: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{secret}".encode()).hexdigest()


def add_application_password(user: User, name: str = "calendar-rest") -> str:
    """Store a new application password for ``user`` and return it in clear, once."""
    secret = generate_application_password()
    salt = secrets.token_hex(16)
    ApplicationPassword.create(
        user=user,
        name=name,
        salt=salt,
        password_hash=hash_secret(secret, salt),
        created=dt.datetime.now(dt.timezone.utc).replace(tzinfo=None),
    )
    return secret


def list_application_passwords(user: User) -> list[ApplicationPassword]:
    """``user``'s application passwords, oldest first, loaded without salt or hash:
    only their id, name and creation time (naive UTC) are there to show."""
    return list(
        ApplicationPassword.select(
            ApplicationPassword.id, ApplicationPassword.name, ApplicationPassword.created
        )
        .where(ApplicationPassword.user == user)
        .order_by(ApplicationPassword.id)
    )


def revoke_application_passwords(user: User, password_id: int | None = None) -> int:
    """Delete ``user``'s application password ``password_id``, or all of them when it is
    None, and return how many were deleted (0 when ``password_id`` is not ``user``'s).

    :func:`authenticate` reads the stored passwords on every request (nothing caches
    them), so a revoked password is refused at once, by running servers too.
    """
    query = ApplicationPassword.delete().where(ApplicationPassword.user == user)
    if password_id is not None:
        query = query.where(ApplicationPassword.id == password_id)
    return int(query.execute())


def authenticate(header: str | None) -> User | None:
    """The user named by a Basic ``Authorization`` header, or None when there is none.

    Any other scheme is ignored (WordPress leaves it to other plugins); bad Basic
    credentials fail the whole request with 401, even on public reads.

    :raises RestError: 401 ``invalid_username`` or ``incorrect_password``.
    """
    if not header:
        return None
    credentials = parse_basic(header)
    if credentials is None:
        return None
    login, secret = credentials
    user = User.get_or_none((User.login == login) | (User.email == login)) if login else None
    if user is None:
        raise RestError("invalid_username", 401)
    secret = secret.replace(" ", "")  # WordPress shows app passwords in groups of four
    matched = False
    for stored in ApplicationPassword.select().where(ApplicationPassword.user == user):
        candidate = hash_secret(secret, stored.salt)
        matched |= hmac.compare_digest(candidate, stored.password_hash)
    if not matched:
        raise RestError("incorrect_password", 401)
    return user


def parse_basic(header: str) -> tuple[str, str] | None:
    """(login, secret) from a Basic header; None for other schemes.

    :raises RestError: 401 when a Basic header cannot be decoded.
    """
    scheme, _, payload = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(payload.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise RestError("invalid_username", 401) from None
    login, sep, secret = decoded.partition(":")
    if "\x00" in login:
        raise RestError("invalid_username", 401)
    if not sep:
        raise RestError("incorrect_password", 401)
    return login, secret


def basic_header(login: str, secret: str) -> str:
    """The ``Authorization`` value a client sends (used by tests and examples)."""
    auth = Authorization("basic", {"username": login, "password": secret})
    return auth.to_header()
