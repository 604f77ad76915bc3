"""The people who call the API: users, their application passwords, and the
failed-login counters that throttle guessing (kept on a store of their own,
``db.login_store``)."""

from __future__ import annotations

import peewee as pw

from .base import BaseModel


class User(BaseModel):
    id: pw.AutoField[int]
    login = pw.CharField(max_length=60, unique=True)
    email = pw.CharField(max_length=100, default="", index=True)
    display_name = pw.CharField(max_length=250, default="")
    role = pw.CharField(max_length=20)
    registered = pw.DateTimeField()
    #: not counted by the rate limits (trusted importers: ``users set --rate-limit-exempt``)
    rate_limit_exempt = pw.BooleanField(default=False)


class ApplicationPassword(BaseModel):
    """A generated API secret; only its salted hash is stored."""

    id: pw.AutoField[int]
    user_id: pw.ForeignKeyField[int]
    user = pw.ForeignKeyField(User, backref="application_passwords", on_delete="CASCADE")
    name = pw.CharField(max_length=100, default="")
    salt = pw.CharField(max_length=64)
    password_hash = pw.CharField(max_length=128)
    created = pw.DateTimeField()


class LoginThrottle(BaseModel):
    """Failed logins of a key (a login or a client address) and the lock they led to
    (``auth.py``); a ``success`` key remembers when an address last authenticated as a
    login. Shared by every process; rows expire."""

    key = pw.CharField(max_length=300, primary_key=True)
    #: the times (Unix seconds, space-separated) of the failures within the window
    failures = pw.TextField(default="")
    locked_until = pw.DateTimeField(null=True)
    #: locks of this key within a day, which double the next lock
    locks = pw.IntegerField(default=0)
    last_lock = pw.DateTimeField(null=True)
    last_success = pw.DateTimeField(null=True)
    expires = pw.DateTimeField(index=True)

    def failure_times(self) -> list[int]:
        return [int(stamp) for stamp in self.failures.split()]
