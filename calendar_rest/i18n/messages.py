"""Registry of error codes and their human-readable messages (TEC's ``Messages.php``).

Resources refer to codes, never to literal sentences; texts are marked with ``N_`` so
message catalogs can be extracted from this one module.
"""

from __future__ import annotations


def N_(message: str) -> str:
    """Mark a string for translation without translating it here."""
    return message


MESSAGES: dict[str, str] = {
    # WordPress core
    "rest_no_route": N_("No route was found matching the URL and request method."),
    "rest_missing_callback_param": N_("Missing parameter(s): %s"),
    "rest_invalid_param": N_("Invalid parameter(s): %s"),
    "rest_invalid_json": N_("Invalid JSON body passed."),
    "rest_forbidden": N_("Sorry, you are not allowed to do that."),
    "rest_payload_too_large": N_("The request body is too large."),
    "rest_too_many_items": N_("Too many items in %s: one write may hold at most %d."),
    "too_many_series_links": N_(
        "Too many items in %s: the occurrences of a series may hold at most %d links "
        "(occurrences × organizers, categories and tags)."
    ),
    "too_many_series_text": N_(
        "Too many items in %s: the occurrences of a series may hold at most %d characters "
        "of text (occurrences × title, description and excerpt)."
    ),
    "rest_malformed_request": N_("The request is not valid HTTP."),
    "rest_headers_too_large": N_("The request headers are too large."),
    "rest_transfer_coding_not_implemented": N_(
        "The request body uses a transfer coding this server does not implement."
    ),
    "rest_internal_error": N_("The server encountered an unexpected error."),
    "rest_conflict": N_("The request conflicted with a concurrent change; retry it."),
    "rest_precondition_failed": N_(
        "The record does not meet the request's preconditions: it changed, or does not"
        " exist. Read it again."
    ),
    "incorrect_password": N_("The provided password is an invalid application password."),
    "invalid_username": N_("Unknown username. Check again or try your email address."),
    "rest_invalid_namespace": N_("The specified namespace could not be found."),
    "rest_cannot_edit": N_("Sorry, you are not allowed to edit this record."),
    "rest_too_many_login_attempts": N_("Too many failed login attempts. Please try again later."),
    "rest_too_many_requests": N_("Too many requests. Please try again later."),
    "rest_cors_origin_not_allowed": N_(
        "Requests that change data are not accepted from this origin."
    ),
    "rest_sync_token_invalid": N_(
        "The sync token is invalid or has expired. Start over with a full sync, without sync_token."
    ),
    # TEC events
    "rest-event-not-found": N_("Event with ID %d does not exist."),
    "rest-invalid-event-id": N_("The specified ID is not a valid event."),
    "event-no-longer-available": N_("This event is no longer available"),
    "event-not-accessible": N_("The requested event is not accessible"),
    "event-password-protected": N_("The requested event is not accessible without a password"),
    "event-archive-page-not-found": N_("The requested event archive page does not exist"),
    "event-is-in-trash": N_("The event is already trashed"),
    "could-not-delete-event": N_("The event could not be deleted"),
    "could-not-update-event": N_("The event could not be updated"),
    "invalid-linked-post-id": N_("The provided linked post ID is not valid"),
    "could-not-create-venue": N_("The venue could not be created from the provided data"),
    "could-not-create-organizer": N_("The organizer could not be created from the provided data"),
    # TEC venues and organizers
    "venue-not-accessible": N_("The requested venue is not accessible"),
    "organizer-not-accessible": N_("The requested organizer is not accessible"),
    "venue-archive-page-not-found": N_("The requested venue archive page does not exist"),
    "organizer-archive-page-not-found": N_("The requested organizer archive page does not exist"),
    "could-not-update-venue": N_("The venue could not be updated"),
    "could-not-update-organizer": N_("The organizer could not be updated"),
    "venue-is-in-trash": N_("The venue is already trashed"),
    "organizer-is-in-trash": N_("The organizer is already trashed"),
    "could-not-delete-venue": N_("The venue could not be deleted"),
    "could-not-delete-organizer": N_("The organizer could not be deleted"),
    # WordPress core terms (categories and tags)
    "term_exists": N_("A term with the name provided already exists with this parent."),
    #: term_exists for a flat taxonomy (tags): same code, WordPress's other sentence
    "term_exists_in_taxonomy": N_("A term with the name provided already exists in this taxonomy."),
    "rest_taxonomy_not_hierarchical": N_("Cannot set parent term, taxonomy is not hierarchical."),
    "duplicate_term_slug": N_("The slug “%s” is already in use by another term."),
    # webhooks (sync.md §4)
    "rest_webhook_invalid_id": N_("Invalid webhook subscription ID."),
    # batch requests (anchors.md §2)
    "rest_batch_max_requests": N_("Too many requests in one batch: a batch holds at most %d."),
    "rest_batch_not_allowed": N_("This request cannot be sent in a batch."),
    "rest_batch_over_rate_limit": N_(
        "This batch holds more requests than your rate limit allows in a whole window:"
        " send at most %d requests per batch."
    ),
    "rest_batch_failed_dependency": N_(
        "Not run: another request of this atomic batch failed, so nothing of the batch was written."
    ),
}
