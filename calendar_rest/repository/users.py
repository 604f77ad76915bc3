"""Creating users and managing their application passwords."""

from __future__ import annotations

import datetime as dt

from ..models import ApplicationPassword, User
from ..wordpress.passwords import generate_password, hash_secret, new_salt

DEFAULT_LABEL = "calendar-rest"


def create_user(
    login: str, role: str, email: str, registered: dt.datetime, display_name: str = ""
) -> User:
    """Insert a user; its display name defaults to its login."""
    return User.create(
        login=login,
        email=email,
        display_name=display_name or login,
        role=role,
        registered=registered,
    )


def add_application_password(user: User, created: dt.datetime, name: str = DEFAULT_LABEL) -> str:
    """Store a new application password for ``user`` and return it in clear, once."""
    secret = generate_password()
    salt = new_salt()
    ApplicationPassword.create(
        user=user, name=name, salt=salt, password_hash=hash_secret(secret, salt), created=created
    )
    return secret


def revoke_application_passwords(user: User, password_id: int | None = None) -> int:
    """Delete ``user``'s application password ``password_id``, or all of them when it is
    None, and return how many were deleted (0 when ``password_id`` is not ``user``'s).

    Authentication reads the stored passwords on every request (nothing caches them),
    so a revoked password is refused at once, by running servers too.
    """
    query = ApplicationPassword.delete().where(ApplicationPassword.user == user)
    if password_id is not None:
        query = query.where(ApplicationPassword.id == password_id)
    return int(query.execute())


def set_rate_limit_exempt(user: User, exempt: bool) -> None:
    """Exempt ``user`` from the rate limits, or count it again; running servers learn
    it on the user's next authenticated request."""
    User.update(rate_limit_exempt=exempt).where(User.id == user.id).execute()
