#!/usr/bin/env python3
"""The qualification, cancellation, lot and contract management flows of a broker, driven by
the upstream Python client.

Runs `openprocurement_client` (the reference broker client, `pip install
openprocurement-client`) against a tender-registry started with `--testing`:

    cargo run --release -- --testing [--ds-users users.ini] &
    python3 scripts/upstream-client-flow.py [http://127.0.0.1:6543 [DS_USER:DS_PASSWORD [EDR_USER:EDR_PASSWORD]]]

It uses the client's own calls: create_tender and patch_tender (every tender made two-phase, a
draft then published, as the spec's Errors 3 advises), upload_document, get_file, create_bid,
upload_bid_document, update_bid_document, get_bid, get_lot, upload_award_document, patch_award,
patch_contract, create_cancellation, upload_cancellation_document and patch_cancellation. Files
go through the server's embedded document service (the client's DS host is the server's base
URL): registered uploads, an unregistered one and a legacy multipart upload to the API, each
read back byte for byte from the address the API shows. The lot flow creates a tender with a
lot inline (a lot id of the client's own, the item naming it), bids with lotValues, reads each
bid's participationUrl for the lot (with its secret), and drives the lot's award and contract to complete. Time
moves through the server's clock control API. A last tender lives on a test clock of the owner's,
named by `clock=ID` in procurementMethodDetails (the client sends no header of its own), and is
played to complete by moving that clock alone. The contract signed in the qualification flow is
then managed through the client's ContractingClient, as upstream's contracting service was:
found in the contracts' feed by its contractID, its credentials taken with the tender token, a
change created, documented through the document service and applied, the contract edited with
the whole object sent back, paid and terminated, after which a document upload is refused.
Every bid is placed as upstream's robot tests place one: its tenderer's code is checked first
with the client's EDRClient.verify_member against the server's EDR service (the client's EDR host
is the server's base URL), and a code the register does not know is refused with upstream's
notFound. Exits non-zero on the first unexpected answer.

With DS_USER:DS_PASSWORD, a user of the server's document service users file (upstream's
format, `--ds-users`), the owner's client uploads with those credentials, as a broker's
existing document service configuration would, and a wrong password is refused. With
EDR_USER:EDR_PASSWORD, a [platforms] user of the same file, the bidder checks codes with those
credentials, as a broker's EDR configuration would, and a wrong password is refused; without
it, with the bidder's broker key.
"""
import builtins
import io
import sys
import uuid
from datetime import datetime, timedelta

import requests
from munch import munchify

# The client was written for Python 2.
builtins.basestring = str

import openprocurement_client.client  # noqa: E402
from openprocurement_client.client import EDRClient, TendersClient  # noqa: E402

# contract.py imports its base class the Python 2 way (`from client import ...`).
sys.modules.setdefault("client", openprocurement_client.client)
from openprocurement_client.contract import ContractingClient  # noqa: E402
from openprocurement_client.exceptions import (  # noqa: E402
    Forbidden,
    InvalidResponse,
    ResourceError,
    ResourceNotFound,
)
from openprocurement_client.utils import get_contract_id_by_uaid  # noqa: E402
from openprocurement_client.document_service_client import (  # noqa: E402
    DocumentServiceClient,
)

BASE = sys.argv[1].rstrip("/") if len(sys.argv) > 1 else "http://127.0.0.1:6543"
DS_USER = tuple(sys.argv[2].split(":", 1)) if len(sys.argv) > 2 else ("broker", "")
EDR_USER = tuple(sys.argv[3].split(":", 1)) if len(sys.argv) > 3 else ("broker1", "")
# The EDR version upstream's robot tests ask (EDR_VERSION in their resource.robot).
EDR_VERSION = "1.0"


class CheckedBidder(TendersClient):
    """The bidder's client as upstream's robot tests drive it (`Подати цінову пропозицію`):
    each bid's tenderer is checked in EDR first, and a check that does not answer 200 raises,
    so the bid is never sent."""

    def __init__(self, key, edr, **kwargs):
        super().__init__(key, **kwargs)
        self.edr = edr
        self.checked = []

    def create_bid(self, tender, bid):
        code = bid["data"]["tenderers"][0]["identifier"]["id"]
        self.checked.append(self.edr.verify_member(code))
        return super().create_bid(tender, bid)


def server_now():
    answer = requests.get(f"{BASE}/testing/clock", timeout=10)
    answer.raise_for_status()
    return datetime.fromisoformat(answer.json()["data"]["now"])


def move_clock_past(moment):
    later = datetime.fromisoformat(moment) + timedelta(seconds=1)
    answer = requests.post(
        f"{BASE}/testing/clock",
        json={"data": {"now": later.isoformat()}},
        timeout=30,
    )
    answer.raise_for_status()


def pdf(name, body=b""):
    file_ = io.BytesIO(b"%PDF-1.4 " + name.encode() + body)
    file_.name = name
    return file_


def download(url, token=None, broker=None):
    """The bytes an address serves, following a hidden bid document's redirect (which wants
    the bid's broker and token)."""
    headers = {"X-Access-Token": token} if token else {}
    auth = (broker, "") if broker else None
    answer = requests.get(url, headers=headers, auth=auth, timeout=10)
    if answer.status_code != 200:
        sys.exit(f"GET {url}: {answer.status_code} {answer.text[:200]}")
    return answer.content


def documents_flow(owner, bidder, bidder_plain):
    """Files through the document service and the legacy upload, read back from every address."""
    tender = create_published(owner, tender_data())
    tid = tender.data.id
    notice = owner.upload_document(pdf("Notice.pdf", bytes(range(256))), tender)
    check("the notice's address", notice.data.url.startswith(f"{BASE}/get/"), True)
    check("the notice's bytes", download(notice.data.url), pdf("Notice.pdf", bytes(range(256))).read())
    _, name = owner.get_file(notice.data.url)
    check("the notice's file name", name, "Notice.pdf")
    plain = owner.upload_document(pdf("Annex.pdf"), tender, doc_registration=False)
    check("the unregistered upload's bytes", download(plain.data.url), pdf("Annex.pdf").read())
    move_clock_past(tender.data.enquiryPeriod.endDate)
    bid = bidder.create_bid(tender, {"data": {"value": {"amount": 480}, "tenderers": [organization()]}})
    # The client sends the token of the object it is given: the bid's, with the tender's id.
    as_bid = munchify({"data": {"id": tid}, "access": {"token": bid.access.token}})
    proposal = bidder.upload_bid_document(pdf("Proposal.pdf"), as_bid, bid.data.id)
    address = proposal.data.url
    check("the bid document's address", "?download=" in address, True)
    check("the bid document's bytes", download(address, bid.access.token, "broker1"), pdf("Proposal.pdf").read())
    check(
        "a stranger's read of the hidden bid document",
        requests.get(address, timeout=10, allow_redirects=False).status_code,
        403,
    )
    updated = bidder.update_bid_document(
        pdf("Proposal.pdf", b" v2"), as_bid, bid.data.id, proposal.data.id
    )
    check("the new version's id", updated.data.id, proposal.data.id)
    check(
        "the new version's bytes",
        download(updated.data.url, bid.access.token, "broker1"),
        pdf("Proposal.pdf", b" v2").read(),
    )
    legacy = bidder_plain.upload_bid_document(
        pdf("Legacy.pdf"), as_bid, bid.data.id, use_ds_client=False
    )
    check("the legacy upload's hash", legacy.data.hash.startswith("md5:"), True)
    check("the legacy upload's bytes", download(legacy.data.url, bid.access.token, "broker1"), pdf("Legacy.pdf").read())


def check(what, actual, expected):
    if actual != expected:
        sys.exit(f"{what}: expected {expected!r}, got {actual!r}")
    shown = repr(actual)
    print(f"ok: {what} is {shown if len(shown) <= 80 else shown[:77] + '...'}")


def organization():
    return {
        "name": "ТОВ Постачальник",
        "identifier": {"scheme": "UA-EDR", "id": "14360570", "uri": "http://example.com/"},
        "address": {"countryName": "Україна", "locality": "м. Київ"},
        "contactPoint": {"name": "Олена", "telephone": "0440000000"},
    }


def move_clock_to_next_check(tender_id, leaving):
    """Moves the clock to each next_check of the tender until it leaves the status `leaving`."""
    for _ in range(10):
        state = requests.get(f"{BASE}/api/2.3/tenders/{tender_id}", timeout=10).json()["data"]
        if state["status"] != leaving:
            return state
        move_clock_past(state["next_check"])
    sys.exit(f"the tender stayed in {leaving} through ten checks")


def create_published(owner, data):
    """A tender made two-phase: created a draft, then published by a PATCH of its status (a
    creation whose answer is lost then leaves an unpublished draft, not a duplicate)."""
    data["data"]["status"] = "draft"
    tender = owner.create_tender(data)
    check("the new tender's status", tender.data.status, "draft")
    published = owner.patch_tender(
        munchify({"data": {"id": tender.data.id, "status": "active.enquiries"}, "access": tender.access})
    )
    tender.data = published.data
    return tender


def tender_data(now=None):
    now = now or server_now()
    entity = dict(organization(), name="Школа №1", kind="general")
    return {
        "data": {
            "procurementMethodType": "belowThreshold",
            "mode": "test",
            "title": "Закупівля паперу",
            "value": {"amount": 500, "currency": "UAH"},
            "minimalStep": {"amount": 15, "currency": "UAH"},
            "enquiryPeriod": {"endDate": (now + timedelta(days=1)).isoformat()},
            "tenderPeriod": {"endDate": (now + timedelta(days=4)).isoformat()},
            "procuringEntity": entity,
            "items": [
                {
                    "description": "Папір А4",
                    "quantity": 10,
                    "unit": {"code": "RM", "name": "пачка"},
                    "classification": {
                        "scheme": "ДК021",
                        "id": "30192700-8",
                        "description": "Папір",
                    },
                }
            ],
        }
    }


def lot_tender_data(lot_id):
    """The tender of tender_data() as one lot, created inline as robot_tests' below.txt does."""
    data = tender_data()
    data["data"]["lots"] = [
        {
            "id": lot_id,
            "title": "Лот 1: папір А4",
            "description": "Поставка паперу А4",
            "value": {"amount": 500, "currency": "UAH"},
            "minimalStep": {"amount": 15, "currency": "UAH"},
        }
    ]
    data["data"]["items"][0]["relatedLot"] = lot_id
    return data


def lot_flow(owner, bidder):
    lot_id = uuid.uuid4().hex
    tender = create_published(owner, lot_tender_data(lot_id))
    tid = tender.data.id
    check("the lot's id", tender.data.lots[0].id, lot_id)
    check("the item's lot", tender.data["items"][0].relatedLot, lot_id)
    check("the lot read alone", owner.get_lot(tender, lot_id).data.title, "Лот 1: папір А4")
    move_clock_past(tender.data.enquiryPeriod.endDate)
    bids = []
    for amount in (480, 470):
        offer = {"value": {"amount": amount}, "relatedLot": lot_id}
        bids.append(
            bidder.create_bid(tender, {"data": {"lotValues": [offer], "tenderers": [organization()]}})
        )
    check("the bid's lot", bids[0].data.lotValues[0].relatedLot, lot_id)
    move_clock_past(tender.data.tenderPeriod.endDate)
    state = owner.get_tender(tid).data
    check("the tender after tendering", state.status, "active.auction")
    auction = state.lots[0].auctionUrl
    for bid in bids:
        read = bidder.get_bid(tender, bid.data.id, bid.access.token).data
        url = read.lotValues[0].participationUrl
        # The bidder's key to the live auction: its bid id and a secret of its own.
        address, _, secret = url.partition("&hash=")
        check(
            "the bid's participationUrl for the lot",
            address,
            f"{auction}?key_for_bid={bid.data.id}",
        )
        check("the length of its secret", len(secret), 32)
    state = move_clock_to_next_check(tid, "active.auction")
    check("the tender after the lot's auction", state["status"], "active.qualification")
    award = owner.get_tender(tid).data.awards[-1]
    check("the award's lot", award.lotID, lot_id)
    check("the award's bid", award.bid_id, bids[1].data.id)
    approved = owner.patch_award(tender, {"data": {"id": award.id, "status": "active"}})
    move_clock_past(approved.data.complaintPeriod.endDate)
    contract = owner.get_tender(tid).data.contracts[-1]
    check("the contract's item", contract["items"][0].relatedLot, lot_id)
    owner.patch_contract(tender, {"data": {"id": contract.id, "status": "active"}})
    state = owner.get_tender(tid).data
    check("the lot after signing", state.lots[0].status, "complete")
    check("the lot tender after signing", state.status, "complete")


def contract_flow(owner_ds, contract_uaid, tender_token):
    """The signed contract under management, as robot_tests' contract_management.robot runs it."""
    contracting = ContractingClient("broker", host_url=BASE, api_version="2.3", ds_client=owner_ds)
    viewer = ContractingClient("", host_url=BASE, api_version="2.3")
    contracting.get_contracts()
    cid = get_contract_id_by_uaid(contract_uaid, viewer)
    contract = viewer.get_contract(cid)
    check("the contract's ID", contract.data.contractID, contract_uaid)
    credentials = contracting.retrieve_contract_credentials(cid, tender_token)
    token = credentials.access.token
    check("the contract token's length", len(token), 32)
    change = contracting.create_change(
        cid,
        token,
        {
            "data": {
                "rationale": "Зміна ціни у зв'язку з коливанням ринку",
                "rationale_en": "Price change",
                "rationaleTypes": ["itemPriceVariation", "priceReduction", "taxRate"],
                "status": "pending",
            }
        },
    )
    check("the change's status", change.data.status, "pending")
    as_contract = munchify({"data": {"id": cid}, "access": {"token": token}})
    document = contracting.upload_document(pdf("Change.pdf"), as_contract)
    check("the change document's bytes", download(document.data.url), pdf("Change.pdf").read())
    bound = dict(document.data, documentOf="change", relatedItem=change.data.id)
    # The whole reply sent back with the binding, as robot_tests sends it.
    rebound = contracting.patch_document(as_contract, {"data": bound})
    check("the document's change", rebound.data.relatedItem, change.data.id)
    # A full-object PATCH, as the robot sends each edit: read, change one field, send all.
    whole = viewer.get_contract(cid)
    whole.data.description = "Поставка паперу А4, уточнено"
    contracting.patch_contract(cid, token, {"data": whole.data})
    check("the edited description", viewer.get_contract(cid).data.description, whole.data.description)
    now = server_now().isoformat()
    applied = contracting.patch_change(cid, change.data.id, token, {"data": {"status": "active", "dateSigned": now}})
    check("the applied change", applied.data.status, "active")
    try:
        contracting.patch_change(cid, change.data.id, token, {"data": {"rationale": "Ще раз"}})
        sys.exit("an applied change was edited")
    except (InvalidResponse, ResourceError) as refused:
        check("an applied change refusing an edit", refused.response.status_code, 403)
    paid = contracting.patch_contract(
        cid, token, {"data": {"amountPaid": {"amount": 470, "currency": "UAH", "valueAddedTaxIncluded": True}}}
    )
    check("the amount paid", paid.data.amountPaid.amount, 470.0)
    terminated = contracting.patch_contract(
        cid, token, {"data": {"status": "terminated", "terminationDetails": "Виконано"}}
    )
    check("the terminated contract", terminated.data.status, "terminated")
    try:
        contracting.upload_document(pdf("Late.pdf"), as_contract)
        sys.exit("a terminated contract took a document")
    except (InvalidResponse, ResourceError) as refused:
        check("a terminated contract refusing a document", refused.response.status_code, 403)


def test_clock_flow(owner, bidder):
    """A tender on a test clock of the owner's, named by the clock= word among the sandbox
    words of procurementMethodDetails (the client sends no header of its own), played to
    complete by moving that clock alone: the server's clock and the broker's own stand."""
    broker = ("broker", "")
    made = requests.post(
        f"{BASE}/testing/clocks",
        json={"data": {"name": "upstream client"}},
        auth=broker,
        timeout=10,
    )
    check("a new test clock", made.status_code, 201)
    clock = made.json()["data"]
    clock_url = f"{BASE}/testing/clocks/{clock['id']}"

    def own_clock():
        answer = requests.get(f"{BASE}/testing/clock", auth=broker, timeout=10)
        answer.raise_for_status()
        return answer.json()["data"]

    def move_test_clock_past(moment):
        later = datetime.fromisoformat(moment) + timedelta(seconds=1)
        answer = requests.post(
            clock_url, json={"data": {"now": later.isoformat()}}, auth=broker, timeout=30
        )
        answer.raise_for_status()

    server_before, own_before = server_now(), own_clock()
    data = tender_data(datetime.fromisoformat(clock["now"]))
    data["data"]["procurementMethodDetails"] = f"quick, clock={clock['id']}"
    tender = create_published(owner, data)
    tid = tender.data.id
    lives_on = requests.get(f"{BASE}/testing/clock", params={"tender": tid}, timeout=10).json()
    check("the clock the tender lives on", lives_on["data"].get("clock"), clock["id"])
    move_test_clock_past(tender.data.enquiryPeriod.endDate)
    bidder.create_bid(tender, {"data": {"value": {"amount": 470}, "tenderers": [organization()]}})
    move_test_clock_past(tender.data.tenderPeriod.endDate)
    award = owner.get_tender(tid).data.awards[0]
    approved = owner.patch_award(tender, {"data": {"id": award.id, "status": "active"}})
    move_test_clock_past(approved.data.complaintPeriod.endDate)
    contract = owner.get_tender(tid).data.contracts[-1]
    owner.patch_contract(tender, {"data": {"id": contract.id, "status": "active"}})
    signed = owner.get_tender(tid).data.status
    check("the tender on its test clock after signing", signed, "complete")
    moved = requests.get(clock_url, timeout=10).json()["data"]
    stand_still_end = datetime.fromisoformat(approved.data.complaintPeriod.endDate)
    if datetime.fromisoformat(moved["now"]) <= stand_still_end:
        sys.exit(f"the test clock did not move past the stand-still: {moved}")
    if server_now() - server_before > timedelta(minutes=5):
        sys.exit("moving the test clock moved the server's clock")
    own_after = own_clock()
    own_moved = datetime.fromisoformat(own_after["now"]) - datetime.fromisoformat(own_before["now"])
    if own_after.get("own") != own_before.get("own") or own_moved > timedelta(minutes=5):
        sys.exit(f"moving the test clock moved the broker's own: {own_before} -> {own_after}")


def edr_flow(edr, bidder):
    """What the checks before the bids answered, and a code the register does not know."""
    check("the bidder's EDR checks before its bids", len(bidder.checked) > 0, True)
    reply = bidder.checked[0]
    code = organization()["identifier"]["id"]
    check("the checked code's status", reply.data[0].registrationStatus, "registered")
    check("the checked code's identification", reply.data[0].identification.id, code)
    check("the checked code's source date", reply.meta.sourceDate[:4].isdigit(), True)
    try:
        edr.verify_member("9900000404")
        sys.exit("a code the register does not know was verified")
    except ResourceNotFound as refused:
        error = refused.response.json()["errors"][0]
        # As upstream's identification bot reads it.
        check("an unknown code's EDR answer", error["description"][0]["error"]["code"], "notFound")
    if EDR_USER != ("broker1", ""):
        stranger = EDRClient(BASE, EDR_VERSION, EDR_USER[0], EDR_USER[1] + "-wrong")
        try:
            stranger.verify_member(code)
            sys.exit("an EDR check with a wrong password was answered")
        except Forbidden as refused:
            check("an EDR check with a wrong password", refused.response.status_code, 403)


def main():
    # The document service is the server itself: the owner's client with the service's own
    # user when one is given, the bidder's with its broker key.
    owner_ds = DocumentServiceClient(host_url=BASE, auth_ds=DS_USER)
    if DS_USER != ("broker", ""):
        stranger = requests.post(
            f"{BASE}/register",
            json={"data": {"hash": "md5:" + "0" * 32}},
            auth=(DS_USER[0], DS_USER[1] + "-wrong"),
            timeout=10,
        )
        check("a registration with a wrong password", stranger.status_code, 403)
    bidder_ds = DocumentServiceClient(host_url=BASE, auth_ds=("broker1", ""))
    owner = TendersClient("broker", host_url=BASE, api_version="2.3", ds_client=owner_ds)
    edr = EDRClient(BASE, EDR_VERSION, *EDR_USER)
    bidder = CheckedBidder("broker1", edr, host_url=BASE, api_version="2.3", ds_client=bidder_ds)
    bidder_plain = TendersClient("broker1", host_url=BASE, api_version="2.3")

    documents_flow(owner, bidder, bidder_plain)
    edr_flow(edr, bidder)

    # Qualification: protocol, approve, cancel the approval, approve anew, sign.
    tender = create_published(owner, tender_data())
    tid = tender.data.id
    move_clock_past(tender.data.enquiryPeriod.endDate)
    bidder.create_bid(tender, {"data": {"value": {"amount": 480}, "tenderers": [organization()]}})
    move_clock_past(tender.data.tenderPeriod.endDate)
    award = owner.get_tender(tid).data.awards[0]
    protocol = owner.upload_award_document(pdf("Protocol.pdf"), tender, award.id)
    check("the protocol's author", protocol.data.author, "tender_owner")
    owner.patch_award(tender, {"data": {"id": award.id, "status": "active"}})
    cancelled = owner.patch_award(tender, {"data": {"id": award.id, "status": "cancelled"}})
    check("the cancelled award", cancelled.data.status, "cancelled")
    state = owner.get_tender(tid).data
    check("the tender after the cancelled approval", state.status, "active.qualification")
    fresh = state.awards[-1]
    owner.upload_award_document(pdf("Protocol-2.pdf"), tender, fresh.id)
    approved = owner.patch_award(tender, {"data": {"id": fresh.id, "status": "active"}})
    move_clock_past(approved.data.complaintPeriod.endDate)
    contract = owner.get_tender(tid).data.contracts[-1]
    owner.patch_contract(tender, {"data": {"id": contract.id, "status": "active"}})
    check("the tender after signing", owner.get_tender(tid).data.status, "complete")
    contract_flow(owner_ds, contract.contractID, tender.access.token)

    # Cancellation: pending, with a document, then active.
    tender = create_published(owner, tender_data())
    tid = tender.data.id
    made = owner.create_cancellation(tender, {"data": {"reason": "Потреба відпала"}})
    check("the new cancellation", made.data.status, "pending")
    owner.upload_cancellation_document(pdf("Reason.pdf"), tender, made.data.id)
    active = owner.patch_cancellation(
        tender, {"data": {"id": made.data.id, "status": "active"}}
    )
    check("the activated cancellation", active.data.status, "active")
    state = owner.get_tender(tid).data
    check("the cancelled tender", state.status, "cancelled")
    check("the cancellation's documents", len(state.cancellations[0].documents), 1)

    # Lots: one lot inline, two bids with lotValues, the lot's auction, award and contract.
    lot_flow(owner, bidder)

    # A tender on a test clock of its own, to complete by moving that clock alone.
    test_clock_flow(owner, bidder)
    print("the upstream client's flow ran to the end")


if __name__ == "__main__":
    main()
