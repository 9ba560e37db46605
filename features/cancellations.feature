@upstream @cancellations
Feature: Tender cancellations
  The owner cancels a tender in any status that is not final: a cancellation is requested
  pending (no effect yet), documents explain it, and activating it cancels the tender. Bids of a
  tender cancelled while they are confidential are deleted. A cancelled tender stays readable
  and refuses every write.

  Background:
    Given the owner has published a tender

  Scenario: A pending cancellation changes nothing yet
    When the owner requests a cancellation of the tender
    Then the response status is 201
    And the Location header is the full address of the created object
    And the response field "data.status" is "pending"
    And the response field "data.cancellationOf" is "tender"
    And the response field "access" is absent
    And reading the tender shows status "active.enquiries"
    When an anonymous client lists the cancellations
    Then the cancellation is listed with its reason

  Scenario: Activating the cancellation cancels the tender during enquiries
    Given the owner has requested a cancellation of the tender
    When the owner uploads a PDF document to the cancellation
    Then the response status is 201
    When the owner activates the last cancellation
    Then the response status is 200
    And the response field "data.status" is "active"
    And reading the tender shows status "cancelled"
    And the tender has no next_check

  @clock @serial
  Scenario: Cancelling while tendering deletes the bids
    Given the tender period has started
    And a bidder has registered an active bid
    When the owner cancels the tender at once
    Then the response status is 201
    And the response field "data.status" is "active"
    And reading the tender shows status "cancelled"
    And the tender shows no bids

  @clock @serial
  Scenario: Cancelling in qualification keeps the award on record
    Given the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    When the owner cancels the tender at once
    Then the response status is 201
    And reading the tender shows status "cancelled"
    And the tender still shows its pending award

  Scenario Outline: A cancellation without a valid <field> is refused
    When the owner requests a cancellation with this data:
      """
      <data>
      """
    Then the response is an error 422 at "body" named "<field>" saying "<description>"
    And reading the tender shows status "active.enquiries"

    Examples:
      | field          | data                                                | description                                |
      | reason         | {"status": "active"}                                | This field is required.                    |
      | reasonType     | {"reason": "x", "reasonType": "cancelled"}          | Rogue field                                |
      | status         | {"reason": "x", "status": "done"}                   | Value must be one of ['pending', 'active']. |
      | relatedLot     | {"reason": "x", "cancellationOf": "lot"}            | This field is required.                    |
      | cancellationOf | {"reason": "x", "cancellationOf": "item"}           | Value must be one of ['tender', 'lot'].    |

  @clock @serial
  Scenario: A bid token cannot cancel the tender
    Given the tender period has started
    And a bidder has registered an active bid
    When the bidder requests a cancellation of the tender with its bid token
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
    And reading the tender shows status "active.tendering"

  Scenario: An unknown cancellation is not found
    When an anonymous client reads a cancellation that does not exist
    Then the response is an error 404 at "url" named "cancellation_id" saying "Not Found"

  Scenario: A cancelled tender refuses changes to the tender
    Given the owner has cancelled the tender
    When the owner changes the tender title
    Then the response is an error 403 at "body" named "data" saying "Can't update tender in current (cancelled) status"
    When the owner uploads a PDF document to the tender
    Then the response is an error 403 at "body" named "data" saying "Can't add document in current (cancelled) tender status"
    And reading the tender shows status "cancelled"

  Scenario: A cancelled tender refuses further cancellations and their changes
    Given the owner has requested a cancellation of the tender
    And the owner has cancelled the tender
    When the owner requests a cancellation of the tender
    Then the response is an error 403 at "body" named "data" saying "Can't add cancellation in current (cancelled) tender status"
    When the owner activates the first cancellation
    Then the response is an error 403 at "body" named "data" saying "Can't update cancellation in current (cancelled) tender status"
    When the owner uploads a PDF document to the cancellation
    Then the response is an error 403 at "body" named "data" saying "Can't add document in current (cancelled) tender status"

  Scenario: A cancelled tender refuses questions
    Given the owner has cancelled the tender
    When a participant asks a question about the tender
    Then the response is an error 403 at "body" named "data" saying "Can add question only in enquiryPeriod"

  @clock @serial
  Scenario: A cancelled tender refuses bids
    Given the tender period has started
    And the owner has cancelled the tender
    When a bidder registers a draft bid
    Then the response is an error 403 at "body" named "data" saying "Can't add bid in current (cancelled) tender status"
