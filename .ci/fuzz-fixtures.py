#!/usr/bin/env python3
"""Seeds a tender-registry --testing server with a tender that holds one of every record, and
prints a schemathesis.toml that makes the fuzzer use those records' ids and tokens for a share
of its requests, so that the operations on nested records (bids, awards, contracts, documents,
claims, cancellations, lots, questions) reach their handlers instead of answering 404.

The tender has two lots: lot A with two bids went through its auction and has a pending award;
lot B with one bid has an active award with a pending contract. It has a question, documents on
the tender, a bid, an award and a contract, a claim on the tender and one on an award, and a
pending cancellation. It is left in active.qualification.

Usage: fuzz-fixtures.py BASE_URL > schemathesis.toml   (standard library only)
"""
import base64
import json
import sys
import urllib.error
import urllib.request
from datetime import datetime, timedelta

BASE = sys.argv[1].rstrip("/")


def call(method, path, data=None, broker="broker", token=None):
    url = BASE + path + (("&" if "?" in path else "?") + "acc_token=" + token if token else "")
    body = None if data is None else json.dumps({"data": data}).encode()
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{broker}:".encode()).decode())
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as e:
        sys.exit(f"fuzz-fixtures: {method} {path}: {e.code} {e.read()[:300]!r}")


def now():
    return datetime.fromisoformat(call("GET", "/testing/clock")["data"]["now"])


def past(moment):
    later = datetime.fromisoformat(moment) + timedelta(seconds=1)
    call("POST", "/testing/clock", {"now": later.isoformat()})


def organization(name):
    return {
        "name": name,
        "identifier": {"scheme": "UA-EDR", "id": "14360570", "uri": "http://example.com/"},
        "address": {"countryName": "Україна", "locality": "м. Київ"},
        "contactPoint": {"name": "Олена", "telephone": "0440000000", "email": "o@example.com"},
    }


def document(name):
    return {
        "title": name,
        "url": f"http://documents.example.net/get/{name}",
        "hash": "md5:" + "0" * 32,
        "format": "application/pdf",
    }


def main():
    start = now()
    lots = [
        {"title": f"Лот {n}", "value": {"amount": 500, "currency": "UAH"},
         "minimalStep": {"amount": 15, "currency": "UAH"}}
        for n in ("A", "B")
    ]
    item = {
        "description": "Папір А4",
        "quantity": 10,
        "unit": {"code": "RM", "name": "пачка"},
        "classification": {"scheme": "ДК021", "id": "30192700-8", "description": "Папір"},
    }
    created = call("POST", "/api/2.3/tenders", {
        "procurementMethodType": "belowThreshold",
        "title": "Закупівля для перевірки опису",
        "value": {"amount": 1000, "currency": "UAH"},
        "minimalStep": {"amount": 15, "currency": "UAH"},
        "enquiryPeriod": {"endDate": (start + timedelta(days=1)).isoformat()},
        "tenderPeriod": {"endDate": (start + timedelta(days=4)).isoformat()},
        "procuringEntity": dict(organization("Школа №1"), kind="general"),
        "items": [item, dict(item, description="Папір А3")],
        "lots": lots,
    })
    tender, owner = created["data"], created["access"]["token"]
    tid = tender["id"]
    lot_a, lot_b = (lot["id"] for lot in tender["lots"])
    call("PATCH", f"/api/2.3/tenders/{tid}", {"items": [{"relatedLot": lot_a}, {"relatedLot": lot_b}]},
         token=owner)
    ids = {"tender_id": [tid], "lot_id": [lot_a, lot_b], "document_id": [], "bid_id": [],
           "award_id": [], "contract_id": [], "question_id": [], "complaint_id": [],
           "cancellation_id": []}
    tokens = [owner]

    question = call("POST", f"/api/2.3/tenders/{tid}/questions",
                    {"title": "Питання", "description": "Який папір?", "author": organization("ТОВ Питання")},
                    broker="broker2")
    ids["question_id"].append(question["data"]["id"])
    ids["document_id"].append(call("POST", f"/api/2.3/tenders/{tid}/documents", document("Notice.pdf"),
                                   token=owner)["data"]["id"])
    claim = call("POST", f"/api/2.3/tenders/{tid}/complaints",
                 {"title": "Вимога", "description": "Змініть умови", "author": organization("ТОВ Вимога"),
                  "status": "claim"}, broker="broker2")
    ids["complaint_id"].append(claim["data"]["id"])
    tokens.append(claim["access"]["token"])

    past(tender["enquiryPeriod"]["endDate"])
    offers = [("broker1", [(lot_a, 480), (lot_b, 490)]), ("broker2", [(lot_a, 470)])]
    for broker, values in offers:
        bid = call("POST", f"/api/2.3/tenders/{tid}/bids", {
            "tenderers": [organization(f"ТОВ {broker}")],
            "lotValues": [{"value": {"amount": amount}, "relatedLot": lot} for lot, amount in values],
        }, broker=broker)
        ids["bid_id"].append(bid["data"]["id"])
        tokens.append(bid["access"]["token"])
        ids["document_id"].append(call("POST", f"/api/2.3/tenders/{tid}/bids/{bid['data']['id']}/documents",
                                       document("Proposal.pdf"), broker=broker,
                                       token=bid["access"]["token"])["data"]["id"])

    past(tender["tenderPeriod"]["endDate"])
    for _ in range(10):
        state = call("GET", f"/api/2.3/tenders/{tid}")["data"]
        if state["status"] == "active.qualification":
            break
        past(state["next_check"])
    else:
        sys.exit(f"fuzz-fixtures: the tender stayed in {state['status']}")

    awards = {award["lotID"]: award["id"] for award in state["awards"]}
    ids["award_id"].extend(awards.values())
    call("PATCH", f"/api/2.3/tenders/{tid}/awards/{awards[lot_b]}", {"status": "active"}, token=owner)
    ids["document_id"].append(call("POST", f"/api/2.3/tenders/{tid}/awards/{awards[lot_b]}/documents",
                                   document("Protocol.pdf"), token=owner)["data"]["id"])
    state = call("GET", f"/api/2.3/tenders/{tid}")["data"]
    contract = state["contracts"][-1]["id"]
    ids["contract_id"].append(contract)
    ids["document_id"].append(call("POST", f"/api/2.3/tenders/{tid}/contracts/{contract}/documents",
                                   document("Contract.pdf"), token=owner)["data"]["id"])
    award_claim = call("POST", f"/api/2.3/tenders/{tid}/awards/{awards[lot_b]}/complaints",
                       {"title": "Вимога", "description": "Перегляньте рішення",
                        "author": organization("ТОВ broker1"), "status": "claim"},
                       broker="broker1", token=tokens[2])
    ids["complaint_id"].append(award_claim["data"]["id"])
    tokens.append(award_claim["access"]["token"])
    cancellation = call("POST", f"/api/2.3/tenders/{tid}/cancellations",
                        {"reason": "Потреба може відпасти", "cancellationOf": "lot", "relatedLot": lot_a},
                        token=owner)
    ids["cancellation_id"].append(cancellation["data"]["id"])

    # Most requests use the fixture; the rest keep exploring unknown ids and missing tokens.
    print("# Generated by .ci/fuzz-fixtures.py: the ids of a seeded tender, used for most requests.")
    for name, values in ids.items():
        print(f"[dictionaries.{name}]\nvalues = {json.dumps(values)}\n")
    print(f"[dictionaries.acc_token]\nvalues = {json.dumps(tokens)}\n")
    # The EDR service: upstream's versions, and a code of each branch but the timeout's (a
    # second's wait each).
    print(f"[dictionaries.version]\nvalues = {json.dumps(EDR_VERSIONS)}\n")
    print(f"[dictionaries.id]\nvalues = {json.dumps(EDR_CODES)}\n")
    print("[parameters]")
    for name in ids:
        print(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.9 }}')
    print('"query.acc_token" = { dictionary = "acc_token", probability = 0.7 }')
    print('"path.version" = { dictionary = "version", probability = 0.9 }')
    print('"query.id" = { dictionary = "id", probability = 0.7 }')


EDR_VERSIONS = ["1.0", "0"]
EDR_CODES = ["14360570", "31415926", "2894801234", "9900000003", "9900000404", "9900000429",
             "9900000502"]


if __name__ == "__main__":
    main()
