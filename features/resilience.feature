@faults
Feature: Resilience: the client recovers from failures as the Errors rules say
  A 5xx does not mean the request was not carried out, and a lost response says nothing at all
  (Errors, rule 1): the client checks the state of the object and repeats only what is missing.
  A repeated publication succeeds (rule 2); a repeated creation can make a duplicate (rule 3),
  so a client checks before it creates again, or creates in two phases. The target fails one
  chosen request of the scenario's broker through its fault API (/testing/faults); a target
  without that API does not offer these scenarios.

  Background:
    Given the target offers faults on demand

  @upstream @err-rule-1 @err-rule-3 @serial
  Scenario: A creation answered 503 after commit is found by a client that checks, not made twice
    When the owner creates a tender in one request and is answered 503 after commit
    Then the answer is a 503 in the error envelope
    When the owner looks in the listing for the tender it sent
    Then the tender it sent is listed once
    And the tender status is "active.enquiries"

  @upstream @err-rule-1 @err-rule-3 @serial
  Scenario: A draft whose creation response is lost stays unpublished and is never listed
    When the owner creates a draft tender and the connection is closed after commit
    Then no response arrives
    When the owner sends the same creation request again
    And the owner publishes the draft tender
    And the owner looks in the listing for the tender it sent
    Then the tender it sent is listed once, as the tender it published

  @upstream @err-rule-1 @err-rule-2
  Scenario: A publication whose response is lost is repeated and succeeds
    Given the owner has created a draft tender
    When the owner publishes the draft tender and the connection is closed after commit
    Then no response arrives
    When the owner reads the tender to check its state
    Then the tender status is "active.enquiries"
    When the owner publishes the tender again
    Then the response status is 200
    And the tender status is "active.enquiries"

  @upstream @err-rule-1 @clock @serial
  Scenario: A bid activation answered 503 after commit reads back active
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the bidder activates the bid and is answered 503 after commit
    Then the answer is a 503 in the error envelope
    When the bidder reads the bid with its token
    Then the response field "data.status" is "active"
