"""Errors the account services raise."""

from urllib.parse import urlencode

from app.errors import DomainError


class AccountError(DomainError):
    status_code = 400


class InvalidCredentials(AccountError):
    """Wrong username or password; the same message for both, so accounts cannot be probed."""

    status_code = 400

    def __init__(self) -> None:
        super().__init__("Wrong username or password.")


class InvalidInput(AccountError):
    """Form input that breaks rules; `errors` maps each field at fault to its message."""

    status_code = 422

    def __init__(self, field: str, message: str, *, more: dict[str, str] | None = None) -> None:
        self.errors = {field: message, **(more or {})}
        super().__init__(" ".join(self.errors.values()))
        self.field = field

    @classmethod
    def of(cls, errors: dict[str, str]) -> "InvalidInput":
        """Gather several fields' problems into one error, so a form shows them all at once."""
        (field, message), *rest = errors.items()
        return cls(field, message, more=dict(rest))


class RateLimited(AccountError):
    status_code = 429

    def __init__(self, retry_after_s: int) -> None:
        minutes = max(1, -(-retry_after_s // 60))
        unit = "minute" if minutes == 1 else "minutes"
        super().__init__(
            f"Too many attempts. Please try again in {minutes} {unit}.",
            headers={"retry-after": str(retry_after_s)},
        )


class NotAuthenticated(AccountError):
    """No one is logged in; pages send the person to log in and then back to next_url."""

    status_code = 401

    def __init__(self, message: str = "Please log in.", next_url: str = "/") -> None:
        super().__init__(
            message,
            headers={"www-authenticate": "Bearer"},
            page_redirect=f"/login?{urlencode({'next': next_url})}",
        )


class PermissionDenied(AccountError):
    status_code = 403

    def __init__(self, message: str = "Your account is not allowed to do that.") -> None:
        super().__init__(message)


class SignupClosed(AccountError):
    status_code = 403

    def __init__(self) -> None:
        super().__init__("Sign-up is closed on this site. Ask an administrator for an account.")


class UserNotFound(AccountError):
    status_code = 404

    def __init__(self, username: str) -> None:
        super().__init__(f"There is no user called {username!r}.")
