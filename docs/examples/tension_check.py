#!/usr/bin/env python3
"""A WidgetBus client in Python (pyzmq), written from docs/PROTOCOL.md.

Walks one user through the Tension Check widget:

  1. RecordTensionIntent {level: 7}       -> StateReply, phase "suggestion"; prints the suggestion
  2. the same request again (same id)     -> the byte-identical stored reply (idempotent retry)
  3. MarkInterventionDoneIntent           -> StateReply, phase "completed"
  4. TimelineRequest TensionCheckWidget   -> TimelineReply; prints its entries
  5. RecordTensionIntent {level: 4}       -> Error "invalid_level"; prints the code

Endpoints come from WIDGETBUS_INTENTS (default tcp://127.0.0.1:5560) and WIDGETBUS_TIMELINES
(default tcp://127.0.0.1:5570). When the bus runs with CURVE, WIDGETBUS_CURVE_SECRET_KEY_FILE names
this client's secret key (a publisher's, e.g. keys/secret/app.key_secret from
scripts/curve-keys.sh) and WIDGETBUS_CURVE_KEYS_DIR the public keys (it reads
services/intent-handler.key and services/timeline-service.key there). Every receive has a timeout, so the script never hangs; it exits
with status 1 if any reply is not the one expected, 2 if a service does not answer.

    python3 -m pip install pyzmq
    python3 docs/examples/tension_check.py
"""

import json
import os
import sys
import time
import uuid
from datetime import datetime, timezone

import zmq
import zmq.auth

INTENTS = os.environ.get("WIDGETBUS_INTENTS") or "tcp://127.0.0.1:5560"
TIMELINES = os.environ.get("WIDGETBUS_TIMELINES") or "tcp://127.0.0.1:5570"
SECRET_KEY_FILE = os.environ.get("WIDGETBUS_CURVE_SECRET_KEY_FILE") or None
KEYS_DIR = os.environ.get("WIDGETBUS_CURVE_KEYS_DIR") or None
TIMEOUT_MS = 2000  # per attempt
ATTEMPTS = 3  # Lazy Pirate: resend the same bytes this many times at most


class Unexpected(Exception):
    """A reply that the protocol says should not happen here."""


class NoReply(Exception):
    """A service did not answer within ATTEMPTS x TIMEOUT_MS."""


def expect(condition, what):
    if not condition:
        raise Unexpected(what)


def now_iso():
    """ISO-8601 UTC with milliseconds, as the wire writes dates: 2026-11-22T09:30:00.000Z"""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def envelope(type_, user=None, body=None, id_=None):
    message = {
        "version": 1,
        "id": id_ or str(uuid.uuid4()),
        "type": type_,
        "sentAt": now_iso(),
        "body": body if body is not None else {},
    }
    if user is not None:
        message["user"] = user
    return message


def encode(message):
    return json.dumps(message, separators=(",", ":"), sort_keys=True).encode("utf-8")


def secure(socket, service):
    """With CURVE configured: prove ourselves with our key pair, and accept only the server whose
    public key is services/<service>.key (PROTOCOL.md §2a). Without it: nothing, plain TCP."""
    if SECRET_KEY_FILE is None:
        return
    public, secret = zmq.auth.load_certificate(SECRET_KEY_FILE)
    server, _ = zmq.auth.load_certificate(os.path.join(KEYS_DIR, "services", service + ".key"))
    socket.curve_publickey, socket.curve_secretkey, socket.curve_serverkey = public, secret, server


class LazyPirateClient:
    """REQ client: poll with a timeout; on silence close the (now stuck) REQ socket, open a new
    one and resend the *same bytes* (same id), a bounded number of times."""

    def __init__(self, context, endpoint):
        self.context = context
        self.endpoint = endpoint
        self.socket = None

    def _connect(self):
        socket = self.context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        secure(socket, "intent-handler")
        socket.connect(self.endpoint)
        return socket

    def request(self, payload):
        """Sends one payload frame; returns (raw reply bytes, decoded reply)."""
        for _ in range(ATTEMPTS):
            if self.socket is None:
                self.socket = self._connect()
            self.socket.send(payload)
            if self.socket.poll(TIMEOUT_MS, zmq.POLLIN):
                raw = self.socket.recv()
                return raw, json.loads(raw)
            self.socket.close()
            self.socket = None
        raise NoReply(f"no reply from {self.endpoint} after {ATTEMPTS} attempts")

    def close(self):
        if self.socket is not None:
            self.socket.close()


class DealerClient:
    """DEALER client: sends ["", payload] (REQ-compatible framing), reads ["", reply] and matches
    the reply to the request by inReplyTo, dropping late replies to earlier attempts."""

    def __init__(self, context, endpoint):
        self.socket = context.socket(zmq.DEALER)
        self.socket.setsockopt(zmq.LINGER, 0)
        secure(self.socket, "timeline-service")
        self.socket.connect(endpoint)
        self.endpoint = endpoint

    def request(self, message):
        payload = encode(message)
        for _ in range(ATTEMPTS):
            self.socket.send_multipart([b"", payload])
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while (left := deadline - time.monotonic()) > 0:
                if not self.socket.poll(int(left * 1000) + 1, zmq.POLLIN):
                    break
                frames = self.socket.recv_multipart()
                reply = json.loads(frames[-1])
                if reply.get("inReplyTo") == message["id"]:
                    return reply
        raise NoReply(f"no reply from {self.endpoint} after {ATTEMPTS} attempts")

    def close(self):
        self.socket.close()


def expect_reply(reply, type_, request):
    if reply.get("type") == "Error":
        body = reply.get("body", {})
        raise Unexpected(f"{request['type']}: error {body.get('code')}: {body.get('message')}")
    expect(reply.get("type") == type_, f"{request['type']}: expected {type_}, got {reply.get('type')}")
    expect(reply.get("inReplyTo") == request["id"], f"{request['type']}: reply names another request")
    return reply["body"]


def fetch_timeline(timelines, user, kind, version):
    """TimelineRequest at `minimumVersion` = the version of our own write: timeline-service
    answers once its timeline reflects it. Asked again while it answers `unavailable` (it is
    still starting, or did not reach the version within its one-second wait)."""
    deadline = time.monotonic() + 10
    while True:
        request = envelope("TimelineRequest", user=user, body={"kind": kind, "minimumVersion": version})
        reply = timelines.request(request)
        if reply.get("type") != "Error" or reply["body"].get("code") != "unavailable":
            body = expect_reply(reply, "TimelineReply", request)
            expect(body["stateVersion"] >= version, "the timeline does not show our change")
            return body
        expect(time.monotonic() < deadline, "timeline-service did not catch up within 10 s")
        time.sleep(0.1)


def main():
    user = "py-example-" + uuid.uuid4().hex[:8]
    context = zmq.Context()
    intents = LazyPirateClient(context, INTENTS)
    timelines = DealerClient(context, TIMELINES)
    try:
        # 1. Record a high tension level: the widget moves to the suggestion phase.
        record = envelope("RecordTensionIntent", user=user, body={"level": 7})
        record_bytes = encode(record)
        first_raw, reply = intents.request(record_bytes)
        state = expect_reply(reply, "StateReply", record)
        phase = state["state"]["phase"]
        expect(state["user"] == user and state["app"] == "tensionCheck", "StateReply for another user/app")
        expect(phase["phase"] == "suggestion", f"expected phase suggestion, got {phase['phase']}")
        expect(phase["checkIn"]["tensionLevel"] == 7, "check-in has the wrong level")
        print(f"user {user}: recorded level 7 (state version {state['version']})")
        print(f"  suggestion: {phase['interventionName']} - {phase['actionLabel']} [{phase['interventionId']}]")
        print(f"  check-in:   {phase['checkInId']}")

        # 2. A retry with the same id changes nothing and gets the stored reply, byte for byte.
        retry_raw, _ = intents.request(record_bytes)
        expect(retry_raw == first_raw, "retry with the same id did not return the identical reply")
        print("  retry with the same id: identical reply, nothing applied twice")

        # 3. Mark the suggested intervention done: the widget shows "completed" until resetAt.
        done = envelope("MarkInterventionDoneIntent", user=user, body={"checkInId": phase["checkInId"]})
        _, reply = intents.request(encode(done))
        state = expect_reply(reply, "StateReply", done)
        completed = state["state"]["phase"]
        expect(completed["phase"] == "completed", f"expected phase completed, got {completed['phase']}")
        expect(completed["checkInId"] == phase["checkInId"], "completed a different check-in")
        print(f"marked done: phase completed until {completed['resetAt']} (state version {state['version']})")

        # 4. The widget's timeline as of our change (read your own writes).
        timeline = fetch_timeline(timelines, user, "TensionCheckWidget", state["version"])
        expect(timeline["kind"] == "TensionCheckWidget" and timeline["user"] == user, "timeline of another widget")
        entries = timeline["entries"]
        expect(len(entries) >= 1, "timeline has no entries")
        print(f"timeline TensionCheckWidget (state version {timeline['stateVersion']}):")
        for entry in entries:
            extra = f" {entry['interventionName']}, resets at {entry['resetAt']}" if entry["phase"] == "completed" else ""
            print(f"  {entry['date']}  {entry['phase']}{extra}")
        policy = timeline["policy"]
        print(f"  reload policy: {policy['type']}" + (f" {policy['date']}" if "date" in policy else ""))
        # Before resetAt the widget shows "completed", then the picker; after it, only the picker.
        if entries[0]["date"] < completed["resetAt"]:
            expect([e["phase"] for e in entries] == ["completed", "picker"], "expected entries completed, picker")
            expect(entries[1]["date"] == completed["resetAt"], "picker entry is not at resetAt")
        else:
            expect([e["phase"] for e in entries] == ["picker"], "expected a picker entry after resetAt")

        # 5. An invalid level is refused with a stable code; nothing changes.
        invalid = envelope("RecordTensionIntent", user=user, body={"level": 4})
        _, reply = intents.request(encode(invalid))
        expect(reply.get("type") == "Error", f"level 4: expected Error, got {reply.get('type')}")
        expect(reply.get("inReplyTo") == invalid["id"], "error names another request")
        code = reply["body"]["code"]
        expect(code == "invalid_level", f"level 4: expected invalid_level, got {code}")
        print(f"level 4 refused: {code} ({reply['body']['message']})")
    except Unexpected as error:
        print(f"tension_check.py: unexpected reply: {error}", file=sys.stderr)
        return 1
    except NoReply as error:
        print(f"tension_check.py: {error}", file=sys.stderr)
        return 2
    finally:
        intents.close()
        timelines.close()
        context.term()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
