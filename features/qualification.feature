@upstream @qualification
Feature: Qualification decisions and the decision protocol
  Beyond approving the best bid, the owner disqualifies a bidder (the next best bid gets a
  pending award), cancels an approval (its contract is cancelled and the same bid gets a fresh
  pending award), reconsiders a disqualification its bidder claimed against (it and every later
  award of its lot are cancelled and the lot is awarded anew) and uploads the decision protocol
  to an award while qualification is open, as brokers did upstream. Every other move is refused
  and changes nothing.

  Background:
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid

  @clock @serial
  Scenario: The owner uploads the decision protocol to the pending award
    Given the tender has reached the award stage
    When the owner uploads a decision protocol to the pending award
    Then the response status is 201
    And the response field "data.author" is "tender_owner"
    And the Location header is the full address of the created object
    And the document's url carries a Signature and a KeyID

  @clock @serial
  Scenario: Approve, cancel the approval, approve anew and sign
    Given the tender has reached the award stage
    And the owner has uploaded a decision protocol to the pending award
    And the owner has approved the pending award
    When the owner cancels the approved award
    Then the response status is 200
    And the Location header names the fresh pending award
    And the decided award shows status "cancelled"
    And the contract of the decided award shows status "cancelled"
    And reading the tender shows status "active.qualification"
    When the owner uploads a decision protocol to the pending award
    Then the response status is 201
    When the owner approves the pending award
    Then the response status is 200
    When an anonymous client reads the tender
    Then the tender shows a contract in status "pending"
    When the owner uploads a PDF document to the pending contract
    Then the response status is 201
    Given the award's stand-still period has ended
    When the owner signs the contract
    Then the response status is 200
    And reading the tender shows status "complete"

  @clock @serial
  Scenario: Disqualifying every bidder ends the tender unsuccessful after the stand-still
    Given a second bidder has registered an active bid
    And the tender has reached the award stage
    When the owner disqualifies the pending award
    Then the response status is 200
    And the Location header names the fresh pending award
    When the owner disqualifies the pending award
    Then the response status is 200
    And the response has no Location header
    And reading the tender shows status "active.awarded"
    Given the stand-still of the last decision has ended
    Then reading the tender shows status "unsuccessful"

  @clock @serial @claims
  Scenario: A disqualification its bidder claimed against is reconsidered
    Given a second bidder has registered an active bid
    And the tender has reached the award stage
    And the owner has disqualified the pending award
    And the owner has approved the pending award
    And the disqualified bidder has submitted a claim on its award with its bid token
    When the owner cancels the disqualified award
    Then the response status is 200
    And the Location header names the fresh pending award
    And the decided award shows status "cancelled"
    And every later award of the decided award's lot shows status "cancelled"
    And the tender shows a contract in status "cancelled"
    And the last claim shows status "cancelled"
    And the fresh pending award is for the decided award's bid
    And reading the tender shows status "active.qualification"

  @clock @serial
  Scenario: A disqualification nobody claimed against stands
    Given the tender has reached the award stage
    And the owner has disqualified the pending award
    When the owner cancels the disqualified award
    Then the response is an error 403 at "body" named "data" saying "Can't update award in current (unsuccessful) status"
    And reading the tender shows status "active.awarded"

  @clock @serial
  Scenario: The decision protocol cannot be uploaded once the decision is made
    Given the tender has reached the award stage
    And the owner has approved the pending award
    When the owner uploads a decision protocol to the decided award
    Then the response is an error 403 at "body" named "data" saying "Can't add document in current (active.awarded) tender status"

  @clock @serial
  Scenario: A pending award cannot be cancelled
    Given the tender has reached the award stage
    When the owner cancels the pending award
    Then the response is an error 403 at "body" named "data" saying "Can't update award in current (pending) status"
    And reading the tender shows status "active.qualification"

  @clock @serial
  Scenario: A disqualified award cannot be approved
    Given the tender has reached the award stage
    And the owner has disqualified the pending award
    When the owner approves the disqualified award
    Then the response is an error 403 at "body" named "data" saying "Can't update award in current (unsuccessful) status"

  @clock @serial
  Scenario: An approved award cannot be disqualified
    Given the tender has reached the award stage
    And the owner has approved the pending award
    When the owner disqualifies the approved award
    Then the response is an error 403 at "body" named "data" saying "Can't update award in current (active) status"

  @clock @serial
  Scenario: qualified and eligible are not fields of a belowThreshold award
    Given the tender has reached the award stage
    When the owner approves the pending award stating it is qualified and eligible
    Then the response is an error 422 at "body" named "qualified" saying "Rogue field"
    And reading the tender shows status "active.qualification"

  @clock @serial
  Scenario: A bidder cannot upload a decision protocol with its bid token
    Given the tender has reached the award stage
    When the bidder uploads a decision protocol to the pending award with its bid token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"

  @clock @serial
  Scenario: A decision protocol with a malformed hash is refused
    Given the tender has reached the award stage
    When the owner uploads a decision protocol whose hash is "md5:xyz"
    Then the response is an error 422 at "body" named "hash" saying "Hash value is wrong length."

  @clock @serial
  Scenario: A decision on an unknown award is refused
    Given the tender has reached the award stage
    When the owner decides on an award that does not exist
    Then the response is an error 404 at "url" named "award_id" saying "Not Found"

  @clock @serial
  Scenario: The contract of a cancelled approval takes no more documents
    Given the tender has reached the award stage
    And the owner has approved the pending award
    And the owner has cancelled the approved award
    When the owner uploads a PDF document to the cancelled contract
    Then the response is an error 403 at "body" named "data" saying "Can't add document in current contract status"
