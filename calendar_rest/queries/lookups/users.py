"""Users and their application passwords, as authentication and the CLI read them."""

from __future__ import annotations

from ...models import ApplicationPassword, User


def user_by_id(user_id: int) -> User | None:
    found: User | None = User.get_or_none(User.id == user_id) if user_id > 0 else None
    return found


def user_by_login(login: str) -> User | None:
    """The user whose login is ``login``, else the one whose e-mail is (WordPress)."""
    if not login:
        return None
    found: User | None = User.get_or_none((User.login == login) | (User.email == login))
    return found


def user_named(login: str) -> User | None:
    """The user whose login is exactly ``login`` (the CLI's user names)."""
    if not User.table_exists():
        return None
    found: User | None = User.get_or_none(User.login == login)
    return found


def all_users() -> list[User]:
    return list(User.select().order_by(User.id))


def stored_passwords(user: User) -> list[tuple[str, str]]:
    """``(salt, hash)`` of each of ``user``'s application passwords."""
    query = ApplicationPassword.select(
        ApplicationPassword.salt, ApplicationPassword.password_hash
    ).where(ApplicationPassword.user == user)
    return [(row.salt, row.password_hash) for row in query]


def application_passwords(user: User) -> list[ApplicationPassword]:
    """``user``'s application passwords, oldest first, loaded without salt or hash:
    only their id, name and creation time (naive UTC) are there to show."""
    return list(
        ApplicationPassword.select(
            ApplicationPassword.id, ApplicationPassword.name, ApplicationPassword.created
        )
        .where(ApplicationPassword.user == user)
        .order_by(ApplicationPassword.id)
    )
