//! The amount paid and termination.
use cucumber::{gherkin::Step, given, then, when};
use reqwest::Method;
use serde_json::{Value, json};

use super::super::common;
use super::changes::change_body;
use super::contract::*;
use super::credentials::ask_credentials;
use crate::{
    checks::ensure,
    checks::{self, Description},
    exchange::short,
    world::{Actor, TenderWorld},
};

#[when("the owner terminates the contract without an amount paid")]
async fn terminates_unpaid(w: &mut TenderWorld) -> Result<(), String> {
    write(w, Method::PATCH, "", json!({"status": "terminated"})).await
}

#[then(expr = "reading the contract shows status {string}")]
async fn shows_status(w: &mut TenderWorld, expected: String) -> Result<(), String> {
    let status = read_contract(w).await?["status"].clone();
    ensure(status == expected.as_str(), || {
        format!("the contract is {status}, expected {expected:?}")
    })
}

#[when(
    "the owner records an amount paid above the contract value, in another currency and with the other VAT flag"
)]
async fn records_paid(w: &mut TenderWorld) -> Result<(), String> {
    let value = read_contract(w).await?["value"].clone();
    let amount = value["amount"]
        .as_f64()
        .ok_or("the contract shows no value amount")?;
    let currency = if value["currency"] == "UAH" {
        "USD"
    } else {
        "UAH"
    };
    let vat = value["valueAddedTaxIncluded"] != Value::Bool(true);
    let paid =
        json!({"amount": amount + 100.0, "currency": currency, "valueAddedTaxIncluded": vat});
    w.noted.insert(PAID.into(), paid.clone());
    write(w, Method::PATCH, "", json!({"amountPaid": paid})).await
}

#[then("the amount paid is shown with the contract value's currency and VAT flag")]
async fn paid_shown(w: &mut TenderWorld) -> Result<(), String> {
    let sent = w.recall(PAID)?;
    let contract = read_contract(w).await?;
    let (paid, value) = (&contract["amountPaid"], &contract["value"]);
    let shown = paid["amount"].as_f64() == sent["amount"].as_f64()
        && paid["currency"] == value["currency"]
        && paid["valueAddedTaxIncluded"] == value["valueAddedTaxIncluded"];
    ensure(shown, || {
        format!("amountPaid is {paid} (sent as {sent}); the contract value is {value}")
    })
}

#[when("the owner terminates the contract with its termination details")]
async fn terminates(w: &mut TenderWorld) -> Result<(), String> {
    let data = json!({"status": "terminated", "terminationDetails": "Зобов'язання виконано в повному обсязі"});
    write(w, Method::PATCH, "", data).await
}

#[given("the owner has terminated the contract, paid in full, in one request")]
async fn has_terminated(w: &mut TenderWorld) -> Result<(), String> {
    let value = read_contract(w).await?["value"].clone();
    let data = json!({
        "status": "terminated",
        "amountPaid": {"amount": value["amount"]},
        "terminationDetails": "Зобов'язання виконано в повному обсязі",
    });
    write(w, Method::PATCH, "", data).await?;
    common::expect_status(w, "terminating the contract", 200)
}

/// A write the owner tries on its contract.
async fn try_write(w: &mut TenderWorld, write_name: &str) -> Result<(), String> {
    let document = || w.recall_text(DOCUMENT);
    match write_name {
        "change the contract" => {
            let data = json!({"description": "Поставка після розірвання"});
            write(w, Method::PATCH, "", data).await
        }
        "make the contract active again" => {
            write(w, Method::PATCH, "", json!({"status": "active"})).await
        }
        "record a change" => {
            let data = change_body(w);
            write(w, Method::POST, "/changes", data).await
        }
        "upload a contract document" => {
            let data = w.document_body().await?["data"].clone();
            write(w, Method::POST, "/documents", data).await
        }
        "replace the contract document" => {
            let path = format!("/documents/{}", document()?);
            let data = w.document_body().await?["data"].clone();
            write(w, Method::PUT, &path, data).await
        }
        "describe the contract document" => {
            let path = format!("/documents/{}", document()?);
            write(
                w,
                Method::PATCH,
                &path,
                json!({"description": "Акт звірки"}),
            )
            .await
        }
        "take the contract's credentials" => {
            let token = w.tender_token()?;
            ask_credentials(w, Actor::Owner, token).await
        }
        other => Err(format!("harness: unknown write {other:?}")),
    }
}

#[then(
    "every write to the terminated contract is refused with upstream's message and reading back shows nothing changed:"
)]
async fn every_write_refused(w: &mut TenderWorld, step: &Step) -> Result<(), String> {
    let table = step
        .table
        .as_ref()
        .ok_or("harness: the step needs a table of writes and descriptions")?;
    let mut before = read_contract(w).await?;
    for row in table.rows.iter().skip(1) {
        let [write_name, description] = row.as_slice() else {
            return Err(format!("harness: a row needs two cells: {row:?}"));
        };
        try_write(w, write_name).await?;
        let status = w.status()?;
        if status != 403 {
            return Err(format!(
                "{write_name}: expected 403, got {status}: {}",
                short(&w.response()?.body)
            ));
        }
        checks::error_triple(
            &w.body,
            "body",
            "data",
            &Description::Exactly(description.clone()),
        )
        .map_err(|e| format!("{write_name}: {e}"))?;
        let after = read_contract(w).await?;
        if after != before {
            return Err(format!(
                "{write_name} was refused, yet the contract reads back changed: {}",
                short(&after.to_string())
            ));
        }
        before = after;
    }
    Ok(())
}
