@awarding
Feature: Award and contract
  After the tendering (and the auction, when there is one) the tender holds a pending award. The
  owner confirms it with the tender token; the award gets a complaint period and a pending
  contract appears, whose number, value, signature date and period the owner can set.

  Background:
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage

  @spec @ep-award-patch @award-active @auth-2 @clock @serial
  Scenario: The owner confirms the award
    When the owner confirms the award
    Then the response status is 200
    And the response field "data.status" is "active"
    And the award has a complaint period
    And the response field "data.bid_id" is the bid's id

  @spec @award-active @ep-get @clock @serial
  Scenario: A confirmed award brings a pending contract
    Given the owner has confirmed the award
    When another broker reads the tender
    Then the tender shows a contract in status "pending"

  @spec @res-contract @clock @serial
  Scenario: The contract copies the items and the value of the award
    Given the owner has confirmed the award
    When another broker reads the tender
    Then the contract ID is the tenderID followed by a sequence number
    And the contract's items are the tender's items
    And the contract's value is the award's value

  @upstream @res-contract @clock @serial
  Scenario: The contract's suppliers are the bid's tenderers
    Given the owner has confirmed the award
    When an anonymous client reads the tender
    Then the contract's suppliers are the bid's tenderers

  @spec @ep-contract-patch @clock @serial
  Scenario: The owner sets the contract number
    Given the owner has confirmed the award
    When the owner sets the contract number
    Then the response status is 200
    And the contract number is the one sent

  @spec @ep-contract-patch @res-contract @conv-7 @clock @serial
  Scenario: The owner lowers the contract value; currency and VAT are kept
    Given the owner has confirmed the award
    When the owner lowers the contract amount by 10 percent
    Then the response status is 200
    And the contract amount is 10 percent lower with the currency and VAT flag kept
    And every amount in the response is a decimal number

  @spec @ep-contract-patch @conv-6 @clock @serial
  Scenario: The owner sets the contract validity period
    Given the owner has confirmed the award
    When the owner sets the contract period
    Then the response status is 200
    And the contract period is the one sent
    And every timestamp in the response has a UTC offset and microseconds

  @spec @ep-contract-patch @stand-still @clock @serial
  Scenario: The owner sets the signature date after the stand-still period
    Given the owner has confirmed the award
    And the award's stand-still period has ended
    When the owner sets the contract signature date to now
    Then the response status is 200
    And the contract signature date is the one sent

  @spec @ep-contract-patch @res-contract @clock @serial
  Scenario: A contract amount above the award's is refused and the contract keeps the award's value
    Given the owner has confirmed the award
    When the owner raises the contract amount above the award's
    Then the request is refused with an error
    And reading the tender shows the contract's value is still the award's

  @upstream @clock @serial
  Scenario: A contract amount above the award's is refused with upstream's message
    Given the owner has confirmed the award
    When the owner raises the contract amount above the award's
    Then the response is an error 403 at "body" named "data" whose description mentions "Value amount should be less or equal to awarded amount"

  @upstream @clock @serial
  Scenario: A signature date before the stand-still end is refused
    Given the owner has confirmed the award
    When the owner sets the contract signature date to now
    Then the response is an error 422 at "body" named "dateSigned"

  @upstream @clock @serial
  Scenario: Signing the contract after the stand-still completes the tender
    Given the owner has confirmed the award
    And the award's stand-still period has ended
    When the owner signs the contract
    Then the response status is 200
    And the response field "data.status" is "active"
    And the response field "data.dateSigned" is present
    And reading the tender shows status "complete"

  @spec @auth-2 @clock @serial
  Scenario: The bid token cannot confirm the award
    When the bidder confirms the award with its bid token
    Then the request is refused with an error
