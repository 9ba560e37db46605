@upstream @lots
Feature: Tenders divided into lots
  A tender may be divided into lots, created inline with the tender: each lot keeps the id the
  client gave it, items name their lot, and the tender's value is the sum of its lots' values
  and its minimal step the least of theirs. The owner adds, changes and deletes lots while
  enquiries run. A bid names the lots it covers in lotValues, each lot with two bids or more
  has an auction of its own, and each lot is awarded, contracted, cancelled and claimed on its
  own: a lot without bids is unsuccessful, a cancelled lot drops out, a claim on a lot stops
  that lot only, and the tender completes once every lot is settled.

  Scenario: A tender is created with its lots inline
    When the owner creates a tender with 2 lots
    Then the response status is 201
    And the tender's lots keep the ids that were sent
    And each item of the tender names its lot
    And every lot of the tender shows status "active"
    And the tender's value is the sum of its lots' values and its minimal step the least of theirs

  Scenario: The owner adds, changes and deletes a lot while enquiries run
    Given the owner has published a tender with 1 lot
    When the owner adds a lot
    Then the response status is 201
    And the Location header is the full address of the created object
    And the response field "data.status" is "active"
    When an anonymous client lists the lots
    Then the response status is 200
    And the lots listed are the tender's 2 lots
    When the owner changes the value of lot 2
    Then the response status is 200
    And reading the tender shows its value is the sum of its lots' values
    When the owner deletes lot 2
    Then the response status is 200
    And reading the tender shows 1 lot
    And the tender's value is the sum of its lots' values and its minimal step the least of theirs

  Scenario: A lot added with an id of the client's own keeps it
    Given the owner has published a tender with 1 lot
    When the owner adds a lot with an id of its own
    Then the response status is 201
    And the added lot keeps the id that was sent
    And reading the tender shows 2 lots

  Scenario: A lot sent back unchanged answers the lot
    Given the owner has published a tender with 1 lot
    When the owner sends the title of lot 1 back unchanged
    Then the response status is 200
    And the response field "data.id" is the id of lot 1

  Scenario: An unknown lot is not found
    Given the owner has published a tender with 1 lot
    When an anonymous client reads a lot that does not exist
    Then the response is an error 404 at "url" named "lot_id" saying "Not Found"

  Scenario Outline: A lot without a valid <field> is refused
    Given the owner has published a tender with 1 lot
    When the owner adds a lot with this data:
      """
      <data>
      """
    Then the response is an error 422 at "body" named "<field>" saying "<description>"
    And reading the tender shows 1 lot

    Examples:
      | field       | data                                                                           | description                                                               |
      | title       | {"value": {"amount": 1000}, "minimalStep": {"amount": 10}}                     | This field is required.                                                   |
      | value       | {"title": "Лот 2", "minimalStep": {"amount": 10}}                              | This field is required.                                                   |
      | minimalStep | {"title": "Лот 2", "value": {"amount": 1000}}                                  | This field is required.                                                   |
      | minimalStep | {"title": "Лот 2", "value": {"amount": 1000}, "minimalStep": {"amount": 2000}} | value should be less than value of lot                                    |
      | value       | {"title": "Лот 2", "value": "1000", "minimalStep": {"amount": 10}}             | Please use a mapping for this field or Value instance instead of unicode. |

  Scenario: Lots with the same id are refused
    When the owner creates a tender with 2 lots sharing one id
    Then the response is an error 422 at "body" named "lots" saying "Lot id should be uniq for all lots"

  Scenario: An item naming a lot the tender does not have is refused
    When the owner creates a tender with 2 lots whose first item names an unknown lot
    Then the response is an error 422 at "body" named "items.0.relatedLot" saying "relatedLot should be one of lots"

  Scenario: Lots whose guarantees differ in currency are refused
    When the owner creates a tender with 2 lots whose guarantees differ in currency
    Then the response is an error 422 at "body" named "lots" saying "lot guarantee currency should be identical to tender guarantee currency"

  Scenario: A lot that an item names cannot be deleted
    Given the owner has published a tender with 2 lots
    When the owner deletes lot 1
    Then the response is an error 422 at "body" named "items.0.relatedLot" saying "relatedLot should be one of lots"
    And reading the tender shows 2 lots

  Scenario: A draft tender takes no new lot
    Given the owner has created a draft tender with 1 lot
    When the owner adds a lot
    Then the response is an error 403 at "body" named "data" saying "Can't add lot in current (draft) tender status"

  @clock @serial
  Scenario: Lots are fixed once tendering starts
    Given the owner has published a tender with 2 lots
    And the tender period has started
    When the owner adds a lot
    Then the response is an error 403 at "body" named "data" saying "Can't add lot in current (active.tendering) tender status"
    When the owner changes the value of lot 2
    Then the response is an error 403 at "body" named "data" saying "Can't update lot in current (active.tendering) tender status"
    When the owner deletes lot 2
    Then the response is an error 403 at "body" named "data" saying "Can't delete lot in current (active.tendering) tender status"
    And reading the tender shows 2 lots

  @clock @serial
  Scenario Outline: A bid on a tender with lots is refused <case>
    Given the owner has published a tender with 2 lots
    And the tender period has started
    When a bidder registers a bid on the lots <case>
    Then the response is an error 422 at "body" named "<field>" saying "<description>"

    Examples:
      | case                                   | field                  | description                                                                               |
      | without lot values                     | lotValues              | This field is required.                                                                   |
      | with a lot value naming no lot         | lotValues.0.relatedLot | This field is required.                                                                   |
      | with a lot value naming an unknown lot | lotValues.0.relatedLot | relatedLot should be one of lots                                                          |
      | above the value of the lot             | lotValues.0.value      | value of bid should be less than value of lot                                             |
      | in another currency than the lot       | lotValues.0.value      | currency of bid should be identical to currency of value of lot                           |
      | with another VAT flag than the lot     | lotValues.0.value      | valueAddedTaxIncluded of bid should be identical to valueAddedTaxIncluded of value of lot |
      | with a value of its own                | value                  | value should be posted for each lot of bid                                                |
      | with two lot values for one lot        | lotValues              | bids don't allow duplicated proposals                                                     |

  @clock @serial
  Scenario: A bid on a tender with lots is refused with a participation address of its own
    Given the owner has published a tender with 2 lots
    And the tender period has started
    When a bidder registers a bid on the lots with a participation address of its own
    Then the response is an error 422 at "body" named "participationUrl" saying "url should be posted for each lot of bid"

  @clock @serial @live-auction
  Scenario: One lot with two bids goes through its auction to a signed contract
    Given the owner has published a tender with 1 lot
    And the tender period has started
    And a bidder has registered an active bid on lot 1
    And a second bidder has registered an active bid on lot 1
    When the tender period ends
    Then the tender status is "active.auction"
    And lot 1 has an auction period and an auction URL
    When each bidder reads its bid with its token
    Then each lot value's participationUrl is its lot's auction URL with key_for_bid set to its bid id
    When the auction ends
    Then the tender status is "active.qualification"
    And the pending award of lot 1 is for its lowest bid
    When the owner approves the pending award of lot 1
    Then the response status is 200
    And the response field "data.lotID" is the id of lot 1
    Given the stand-still of every decision has ended
    Then the contract of lot 1 holds the items of lot 1
    When the owner signs the contract of lot 1
    Then the response status is 200
    And reading the tender shows lot 1 in status "complete"
    And the tender status is "complete"

  @clock @serial @live-auction
  Scenario: Of two lots the one with a single bid is awarded without an auction, the other after its auction
    Given the owner has published a tender with 2 lots
    And the tender period has started
    And a bidder has registered an active bid on lot 1
    And a second bidder has registered an active bid on lot 2
    And a third bidder has registered an active bid on lot 2
    When the tender period ends
    Then the tender status is "active.auction"
    And lot 2 has an auction period and an auction URL
    And lot 1 has no auction URL
    When the auction ends
    Then the tender status is "active.qualification"
    And the pending award of lot 1 is for its lowest bid
    And the pending award of lot 2 is for its lowest bid
    When the owner approves the pending award of lot 1
    Then the response status is 200
    When the owner approves the pending award of lot 2
    Then the response status is 200
    Given the stand-still of every decision has ended
    When the owner signs the contract of lot 1
    Then the response status is 200
    And reading the tender shows lot 1 in status "complete"
    And the tender status is "active.awarded"
    When the owner signs the contract of lot 2
    Then the response status is 200
    And reading the tender shows lot 2 in status "complete"
    And the tender status is "complete"

  @clock @serial
  Scenario: A lot without bids is unsuccessful while the other lot completes
    Given the owner has published a tender with 2 lots
    And the tender period has started
    And a bidder has registered an active bid on lot 2
    And the tender has reached the award stage
    Then the tender shows lot 1 in status "unsuccessful"
    And the tender has no award for lot 1
    When the owner approves the pending award of lot 2
    Then the response status is 200
    Given the stand-still of every decision has ended
    When the owner signs the contract of lot 2
    Then the response status is 200
    And reading the tender shows lot 2 in status "complete"
    And the tender shows lot 1 in status "unsuccessful"
    And the tender status is "complete"

  @clock @serial
  Scenario: A lot whose every bidder is disqualified is unsuccessful, and the tender completes through the other
    Given the owner has published a tender with 2 lots
    And the tender period has started
    And a bidder has registered an active bid on every lot
    And the tender has reached the award stage
    When the owner disqualifies the pending award of lot 1
    Then the response status is 200
    And the tender has no pending award for lot 1
    When the owner approves the pending award of lot 2
    Then the response status is 200
    Given the stand-still of every decision has ended
    When the owner signs the contract of lot 2
    Then the response status is 200
    And reading the tender shows lot 1 in status "unsuccessful"
    And the tender shows lot 2 in status "complete"
    And the tender status is "complete"

  @clock @serial @live-auction
  Scenario: A lot cancelled before the auction drops out and the other lot completes
    Given the owner has published a tender with 2 lots
    And the tender period has started
    And a bidder has registered an active bid on every lot
    And a second bidder has registered an active bid on every lot
    When the owner cancels lot 1 at once
    Then the response status is 201
    And the response field "data.cancellationOf" is "lot"
    And the response field "data.relatedLot" is the id of lot 1
    And reading the tender shows lot 1 in status "cancelled"
    And the tender status is "active.tendering"
    When the tender period ends
    Then the tender status is "active.auction"
    And lot 2 has an auction period and an auction URL
    When the auction ends
    Then the tender status is "active.qualification"
    And the tender has no award for lot 1
    And the pending award of lot 2 is for its lowest bid
    When the owner approves the pending award of lot 2
    Then the response status is 200
    Given the stand-still of every decision has ended
    When the owner signs the contract of lot 2
    Then the response status is 200
    And reading the tender shows lot 1 in status "cancelled"
    And the tender shows lot 2 in status "complete"
    And the tender status is "complete"

  Scenario: A cancelled lot takes no further cancellation
    Given the owner has published a tender with 2 lots
    And the owner has cancelled lot 1
    When the owner cancels lot 1 at once
    Then the response is an error 403 at "body" named "data" saying "Can add cancellation only in active lot status"
    And reading the tender shows lot 1 in status "cancelled"
    And the tender status is "active.enquiries"

  Scenario: Cancelling every lot cancels the tender
    Given the owner has published a tender with 2 lots
    And the owner has cancelled lot 1
    When the owner cancels lot 2 at once
    Then the response status is 201
    And reading the tender shows lot 2 in status "cancelled"
    And the tender status is "cancelled"

  Scenario: A lot cancellation must name a lot of the tender
    Given the owner has published a tender with 2 lots
    When the owner cancels a lot the tender does not have
    Then the response is an error 422 at "body" named "relatedLot" saying "relatedLot should be one of lots"
    And reading the tender shows status "active.enquiries"

  Scenario: A question about a lot is asked while the lot is active
    Given the owner has published a tender with 2 lots
    When a participant asks a question about lot 1
    Then the response status is 201
    And the response field "data.questionOf" is "lot"
    And the response field "data.relatedItem" is the id of lot 1
    When a participant asks a question about a lot the tender does not have
    Then the response is an error 422 at "body" named "relatedItem" saying "relatedItem should be one of lots"
    Given the owner has cancelled lot 1
    When a participant asks a question about lot 1
    Then the response is an error 403 at "body" named "data" saying "Can add question only in active lot status"
    When a participant asks a question about lot 2
    Then the response status is 201

  Scenario: A document about a lot names a lot of the tender
    Given the owner has published a tender with 2 lots
    When the owner uploads a PDF document about lot 2
    Then the response status is 201
    And the response field "data.documentOf" is "lot"
    And the response field "data.relatedItem" is the id of lot 2
    When the owner uploads a PDF document about a lot the tender does not have
    Then the response is an error 422 at "body" named "relatedItem" saying "relatedItem should be one of lots"

  Scenario: A claim names a lot of the tender
    Given the owner has published a tender with 2 lots
    When a participant submits a claim on lot 1
    Then the response status is 201
    And the response field "data.relatedLot" is the id of lot 1
    When a participant submits a claim on a lot the tender does not have
    Then the response is an error 422 at "body" named "relatedLot" saying "relatedLot should be one of lots"

  @clock @serial
  Scenario: An answered claim on a lot stops the contract of that lot only
    Given the owner has published a tender with 2 lots
    And a participant has submitted a claim on lot 1
    And the tender period has started
    And a bidder has registered an active bid on every lot
    And the tender has reached the award stage
    And the owner has approved the pending award of lot 1
    And the owner has approved the pending award of lot 2
    And the stand-still of every decision has ended
    And the owner has answered the claim as resolved
    When the owner signs the contract of lot 2
    Then the response status is 200
    And reading the tender shows lot 2 in status "complete"
    When the owner signs the contract of lot 1
    Then the response is an error 403 at "body" named "data" saying "Can't sign contract before reviewing all complaints"
    And reading the tender shows lot 1 in status "active"
    And the tender status is "active.awarded"
    When the claimant accepts the answer as satisfied
    Then the response status is 200
    When the owner signs the contract of lot 1
    Then the response status is 200
    And reading the tender shows status "complete"
