@two-phase
Feature: Two-phase creation: a draft, then its publication
  The owner creates a tender with status draft and publishes it with a PATCH. Until then the
  draft is invisible to the listing and to the scheduler; the publication may be repeated.

  @spec @state-draft @ep-create @ep-rule-1 @res-next-check
  Scenario: A tender created with status draft is a draft and has a token
    When the owner creates a draft tender
    Then the response status is 201
    And the response carries an access token
    And the tender status is "draft"
    And the tender has no next_check

  @spec @state-draft @ep-list
  Scenario: A draft tender is absent from the list
    Given the owner has created a draft tender
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is not listed

  @spec @state-draft @ep-get
  Scenario: A draft tender can be read by its id
    Given the owner has created a draft tender
    When another broker reads the tender
    Then the response status is 200
    And the tender status is "draft"

  @upstream @state-draft
  Scenario: A draft tender can be read by its id without credentials
    Given the owner has created a draft tender
    When an anonymous client reads the tender
    Then the response status is 200
    And the tender status is "draft"

  @spec @state-publish @ep-patch @ep-rule-1 @res-next-check
  Scenario: Publishing a draft moves it to active.enquiries and sets next_check
    Given the owner has created a draft tender
    When the owner publishes the draft tender
    Then the response status is 200
    And the tender status is "active.enquiries"
    And the tender has a next_check

  @spec @state-publish @res-date
  Scenario: Publishing a draft refreshes its date
    Given the owner has created a draft tender
    When the owner publishes the draft tender
    Then the response status is 200
    And the tender's date is refreshed

  @spec @res-date
  Scenario: A published tender keeps its publication date through its changes
    Given the owner has published a tender
    And the owner has changed the tender title
    And the owner has uploaded a PDF document to the tender
    And a participant has asked a question about the tender
    When another broker reads the tender
    Then the tender's date is the one its publication answered

  @spec @state-publish @ep-list
  Scenario: A published tender appears in the list
    Given the owner has published a tender
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is listed

  @spec @state-publish @err-rule-2
  Scenario: Repeating the publication succeeds without error
    Given the owner has published a tender
    When the owner publishes the tender again
    Then the response status is 200
    And the tender status is "active.enquiries"

  @spec @err-rule-1 @err-rule-2
  Scenario: After an unclear outcome the owner checks the tender and repeats the publication
    Given the owner has created a draft tender
    When the owner publishes the draft tender and loses the response
    And the owner reads the tender to check its state
    And the owner publishes the tender again
    Then the response status is 200
    And the tender status is "active.enquiries"

  @spec @err-rule-3
  Scenario: A repeated creation request is answered as a creation of its own
    When the owner creates a draft tender
    And the owner sends the same creation request again
    Then the response status is 201
    And the tender the repeated request names can be read

  @upstream @err-rule-3
  Scenario: A repeated creation request creates a second tender
    When the owner creates a draft tender
    And the owner sends the same creation request again
    Then the response status is 201
    And the two tenders have different ids

  @upstream @state-draft
  Scenario: A draft accepts no change other than its publication
    Given the owner has created a draft tender
    When the owner changes the tender title
    Then the response is an error 403 at "body" named "data" saying "Can't update tender in current (draft) status"
