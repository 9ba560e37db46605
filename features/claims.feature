@upstream @claims
Feature: Claims on the tender and on awards
  A participant who disagrees with the tender's terms (while enquiries or tendering run) or
  with an award (during its complaint period) files a claim and gets a token of its own; an
  award claim is filed with the bid's token. The owner answers a submitted claim, the claimant
  accepts the answer or lets the stand-still pass, after which the claim takes the answer's
  resolution type. The claimant may cancel the claim until it is settled. An answered claim
  stops the contract from being signed; an unanswered one stops nothing and is ignored once
  the tender completes. Each move belongs to one party; every refusal changes nothing.

  Background:
    Given the owner has published a tender

  Scenario: A claim answered as resolved and accepted with satisfaction
    When a participant files a draft claim on the tender
    Then the response status is 201
    And the Location header is the full address of the created object
    And the response field "data.status" is "draft"
    And the response field "data.type" is "claim"
    And the response field "access.token" is present
    And the claim's author is shown
    When an anonymous client reads the last claim
    Then the claim's author is hidden
    When the claimant uploads a PDF document to the claim
    Then the response status is 201
    And the response field "data.author" is "complaint_owner"
    When the claimant submits the draft claim
    Then the response status is 200
    And the response field "data.status" is "claim"
    And the response field "data.dateSubmitted" is present
    When the owner uploads a PDF document to the claim
    Then the response field "data.author" is "tender_owner"
    When the owner answers the claim as resolved
    Then the response status is 200
    And the response field "data.status" is "answered"
    And the response field "data.dateAnswered" is present
    When the claimant accepts the answer as satisfied
    Then the response status is 200
    And the response field "data.status" is "resolved"
    And the response field "data.satisfied" is "true"
    And the last claim shows status "resolved"

  @clock @serial
  Scenario: A declined claim the claimant is not satisfied with becomes declined after the stand-still
    Given a participant has submitted a claim on the tender
    And the owner has answered the claim as declined
    When the claimant states it is not satisfied
    Then the response status is 200
    And the response field "data.status" is "answered"
    When the stand-still of the answer passes
    Then the last claim shows status "declined"

  @clock @serial
  Scenario: A claim answered as invalid becomes invalid after the stand-still
    Given a participant has submitted a claim on the tender
    And the owner has answered the claim as invalid
    When the stand-still of the answer passes
    Then the last claim shows status "invalid"

  Scenario: A draft claim is cancelled
    Given a participant has filed a draft claim on the tender
    When the claimant cancels the claim
    Then the response status is 200
    And the response field "data.status" is "cancelled"
    And the response field "data.dateCanceled" is present

  Scenario: A submitted claim is cancelled
    Given a participant has submitted a claim on the tender
    When the claimant cancels the claim
    Then the response status is 200
    And the response field "data.status" is "cancelled"

  Scenario: An answered claim is cancelled
    Given a participant has submitted a claim on the tender
    And the owner has answered the claim as resolved
    When the claimant cancels the claim
    Then the response status is 200
    And the response field "data.status" is "cancelled"

  Scenario: A cancellation without a reason is refused
    Given a participant has submitted a claim on the tender
    When the claimant cancels the claim without a reason
    Then the response is an error 422 at "body" named "cancellationReason" saying "This field is required."
    And the last claim shows status "claim"

  Scenario: A short resolution is refused
    Given a participant has submitted a claim on the tender
    When the owner answers the claim with a resolution shorter than 20 characters
    Then the response is an error 403 at "body" named "data" saying "Can't update complaint: resolution too short"
    And the last claim shows status "claim"

  Scenario: An answer without a resolution type is refused
    Given a participant has submitted a claim on the tender
    When the owner answers the claim without a resolution type
    Then the response is an error 422 at "body" named "resolutionType" saying "This field is required."
    And the last claim shows status "claim"

  Scenario: The owner may not cancel a draft claim
    Given a participant has filed a draft claim on the tender
    When the owner cancels the claim
    Then the response is an error 403 at "url" named "role" saying "Forbidden"
    And the last claim shows status "draft"

  Scenario: The claimant may not edit a submitted claim
    Given a participant has submitted a claim on the tender
    When the claimant edits the submitted claim
    Then the response is an error 403 at "url" named "role" saying "Forbidden"

  Scenario: A claim is not changed with another token
    Given a participant has submitted a claim on the tender
    When the claimant's broker changes the claim with the tender's token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    And the last claim shows status "claim"

  Scenario: A settled claim changes no more
    Given a participant has submitted a claim on the tender
    And the owner has answered the claim as resolved
    When the claimant accepts the answer as satisfied
    Then the response status is 200
    When the claimant cancels the claim
    Then the response is an error 403 at "body" named "data" saying "Can't update complaint in current (resolved) status"

  Scenario: An unknown claim is not found
    When an anonymous client reads a claim that does not exist
    Then the response is an error 404 at "url" named "complaint_id" saying "Not Found"

  @clock @serial
  Scenario: Claims on the tender close with tendering
    Given the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    When a participant submits a claim on the tender
    Then the response is an error 403 at "body" named "data" saying "Can't add complaint in current (active.qualification) tender status"

  @clock @serial
  Scenario: An award claim needs the bid's token
    Given the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    When a participant submits a claim on the award without a token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    When the bidder submits a claim on the award with its bid token
    Then the response status is 201
    And the Location header is the full address of the created object
    And the response field "access.token" is present

  @clock @serial
  Scenario: An answered award claim stops the contract until it is settled
    Given the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    And the bidder has submitted a claim on the award with its bid token
    And the owner has approved the pending award
    And the award's stand-still period has ended
    And the owner has answered the claim as resolved
    When the owner signs the contract
    Then the response is an error 403 at "body" named "data" saying "Can't sign contract before reviewing all complaints"
    When the claimant accepts the answer as satisfied
    Then the response status is 200
    When the owner signs the contract
    Then the response status is 200
    And reading the tender shows status "complete"

  @clock @serial
  Scenario: An unanswered award claim blocks nothing and is ignored once the tender completes
    Given the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    And the bidder has submitted a claim on the award with its bid token
    And the owner has approved the pending award
    And the award's stand-still period has ended
    When the owner signs the contract
    Then the response status is 200
    And reading the tender shows status "complete"
    And the last claim shows status "ignored"
