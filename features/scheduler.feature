@scheduler
Feature: Scheduler transitions
  The service moves a published tender from active.enquiries to active.tendering when the tender
  period starts, by itself. Drafts are invisible to the scheduler.

  @spec @state-tendering @res-next-check @clock @serial
  Scenario: The tender moves to active.tendering when the tender period starts
    Given the owner has published a tender
    When the tender period starts
    Then the tender status is "active.tendering"
    And the tender has a next_check

  @spec @state-tendering @clock @serial
  Scenario: A tender created in one request moves to active.tendering as well
    Given the owner has created a tender in one request
    When the tender period starts
    Then the tender status is "active.tendering"

  @spec @state-draft @clock @serial
  Scenario: The scheduler leaves a draft alone
    Given the owner has created a draft tender
    When the draft's tender period start has passed
    And another broker reads the tender
    Then the tender status is "draft"
    And the tender has no next_check

  @upstream @state-tendering @clock @serial
  Scenario: During tendering next_check is the tender period end
    Given the owner has published a tender
    When the tender period starts
    Then the tender's next_check is the end of the tender period

  @upstream @clock @serial
  Scenario: A tender without bids becomes unsuccessful
    Given the owner has published a tender
    And the tender period has started
    When the tender period ends
    Then the tender status is "unsuccessful"

  @upstream @clock @serial
  Scenario: A tender with one bid goes straight to qualification with a pending award
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    When the tender period ends
    Then the tender status is "active.qualification"
    And the tender has a pending award for the bid

  @upstream @clock @serial
  Scenario: Draft bids are dropped when the tendering ends
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    When the tender period ends
    Then the tender status is "unsuccessful"
