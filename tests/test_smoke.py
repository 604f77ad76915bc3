from conftest import Api, assert_wp_error


def test_an_event_can_be_created_read_and_trashed(api: Api) -> None:
    event = api.create_event(title="Jazz Night")
    assert api.get(f"/events/{event['id']}").json["title"] == "Jazz Night"
    assert api.delete(f"/events/{event['id']}", "administrator").json["status"] == "trash"
    assert_wp_error(api.get(f"/events/{event['id']}"), 403, "event-no-longer-available")
