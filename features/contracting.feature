@upstream @contracting
Feature: Contract management after signing
  A signed contract lives on after its tender: when the tender, or one of its lots, completes,
  each of its signed contracts is handed over to contract management at /contracts, with the
  same id, the tender's id and owner. The tender owner's broker takes the contract's
  credentials with the tender token; each time it does the contract gets a new token and the
  one before stops working. With the contract token it records a change pending, documents it
  and applies it with the date it was signed, after which the change is fixed; it sends the
  whole contract back with what it changed, and only what a broker may change is taken; it
  records the amount paid, which is shown in the contract value's currency, and terminates the
  contract, which needs the amount paid and ends every write. Every refusal is upstream's and
  changes nothing.

  @clock @serial @hand-over
  Scenario: A completed tender hands its signed contract over
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    And the owner has confirmed the award
    And the award's stand-still period has ended
    When the owner uploads a PDF document to the pending contract
    Then the response status is 201
    When the owner signs the contract
    Then the response status is 200
    And reading the tender shows status "complete"
    When an anonymous client reads the contract under management
    Then the response status is 200
    And the contract under management is the signed contract, with its tender's id and owner
    And the newest contracts listed show the contract with its contractID

  @clock @serial @hand-over @lots
  Scenario: A lot that completes hands its contract over while the other lot's contract waits
    Given the owner has published a tender with 2 lots
    And the tender period has started
    And a bidder has registered an active bid on every lot
    And the tender has reached the award stage
    And the owner has approved the pending award of lot 1
    And the owner has approved the pending award of lot 2
    And the stand-still of every decision has ended
    When the owner signs the contract of lot 1
    Then the response status is 200
    And reading the tender shows lot 1 in status "complete"
    And the tender status is "active.awarded"
    When an anonymous client reads the contract of lot 1 under management
    Then the response status is 200
    And the contract under management is the signed contract, with its tender's id and owner
    And the contract under management holds the items of lot 1
    When an anonymous client reads the contract of lot 2 under management
    Then the response is an error 404 at "url" named "contract_id" saying "Not Found"

  @clock @serial @credentials
  Scenario: Only the tender owner's broker takes the contract's credentials, and new credentials retire the token before
    Given a bidder has won a tender and the owner has signed the contract
    When another broker asks for the contract's credentials with the tender token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    When the owner asks for the contract's credentials with a wrong token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    When the owner asks for the contract's credentials with the tender token
    Then the response status is 200
    And the response carries a new contract token
    When the owner changes the contract's description with the contract token
    Then the response status is 200
    When the owner changes the contract's description with the tender token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    When another broker changes the contract's description with the contract token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    When the owner asks for the contract's credentials with the tender token again
    Then the response status is 200
    And the response carries a new contract token
    When the owner changes the contract's description with the token before
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    And reading the contract shows the description last accepted

  @clock @serial @changes
  Scenario: A change is recorded pending, documented, applied with the date it was signed, and then fixed
    Given a bidder has won a tender and the owner has signed the contract
    And the owner has taken the contract's credentials
    When the owner records a change of the contract
    Then the response status is 201
    And the Location header is the full address of the created object
    And the response field "data.status" is "pending"
    When the owner records another change of the contract
    Then the response is an error 403 at "body" named "data" saying "Can't create new contract change while any (pending) change exists"
    When the owner uploads a PDF document to the contract
    Then the response status is 201
    And the response field "data.documentOf" is "contract"
    When the owner binds the document to the pending change
    Then the response status is 200
    And the document is bound to the change
    When the owner uploads a new version of the contract document
    Then the response status is 200
    And the document is bound to the change
    When the owner applies the change without a signature date
    Then the response is an error 403 at "body" named "data" saying "Can't update contract change status. 'dateSigned' is required."
    When the owner applies the change, signed when it was recorded
    Then the response status is 200
    And the response field "data.status" is "active"
    And the contract shows the change applied, with its document
    When the owner edits the rationale of the applied change
    Then the response is an error 403 at "body" named "data" saying "Can't update contract change in current (active) status"
    When the owner uploads another PDF document to the contract
    Then the response status is 201
    When the owner binds the document to the applied change
    Then the response is an error 403 at "body" named "data" saying "Can't add document to 'active' change"

  @clock @serial @full-patch
  Scenario: The whole contract sent back changes only what a broker may change
    Given a bidder has won a tender and the owner has signed the contract
    And the owner has taken the contract's credentials
    And the owner has recorded a change of the contract
    When the owner sends the whole contract back with a new description, value and item quantity, and with another contractID, owner, dateSigned, change rationale and item classification
    Then the response status is 200
    And reading the contract shows the new description, value and item quantity
    And reading the contract shows its contractID, owner, dateSigned, changes and item classification as they were

  @clock @serial @payment
  Scenario: The amount paid is shown in the contract value's currency, and termination needs it
    Given a bidder has won a tender and the owner has signed the contract
    And the owner has taken the contract's credentials
    When the owner terminates the contract without an amount paid
    Then the response is an error 403 at "body" named "data" saying "Can't terminate contract while 'amountPaid' is not set"
    And reading the contract shows status "active"
    When the owner records an amount paid above the contract value, in another currency and with the other VAT flag
    Then the response status is 200
    And the amount paid is shown with the contract value's currency and VAT flag
    When the owner terminates the contract with its termination details
    Then the response status is 200
    And the response field "data.status" is "terminated"
    And reading the contract shows status "terminated"

  @clock @serial @termination
  Scenario: A terminated contract takes no more writes
    Given a bidder has won a tender and the owner has signed the contract
    And the owner has taken the contract's credentials
    And the owner has uploaded a PDF document to the contract
    And the owner has terminated the contract, paid in full, in one request
    Then every write to the terminated contract is refused with upstream's message and reading back shows nothing changed:
      | write                           | description                                                        |
      | change the contract             | Can't update contract in current (terminated) status               |
      | make the contract active again  | Can't update contract in current (terminated) status               |
      | record a change                 | Can't add contract change in current (terminated) contract status  |
      | upload a contract document      | Can't add document in current (terminated) contract status         |
      | replace the contract document   | Can't update document in current (terminated) contract status      |
      | describe the contract document  | Can't update document in current (terminated) contract status      |
      | take the contract's credentials | Can't generate credentials in current (terminated) contract status |
