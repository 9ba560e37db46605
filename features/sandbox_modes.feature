@upstream @sandbox-modes
Feature: Upstream's sandbox modes of the auction
  On a sandbox a tender may ask, at creation, how its auction runs, with upstream's values of
  submissionMethodDetails: "quick(mode:no-auction)" skips the auction, so qualification follows
  the end of tendering on the sealed bids and no auction address exists;
  "quick(mode:fast-forward)" settles the auction the moment tendering ends, on the sealed bids,
  and leaves its page finished and viewable. A target without a sandbox does not offer them.

  @clock @serial
  Scenario: Without an auction, qualification follows tendering on the sealed bids
    Given the owner has published a tender in upstream's sandbox mode "quick(mode:no-auction)"
    And the tender period has started
    And a bidder has registered an active bid
    And a second bidder has registered an active bid
    When the tender period ends
    Then the tender status is "active.qualification"
    And the tender has no auction URL
    And no bid shows a participation address
    And the auction period starts and ends when the tender period ends
    And the tender has a pending award for the lowest bid

  @clock @serial
  Scenario: A fast-forwarded auction is settled when tendering ends and its page stays
    Given the owner has published a tender in upstream's sandbox mode "quick(mode:fast-forward)"
    And the tender period has started
    And a bidder has registered an active bid
    And a second bidder has registered an active bid
    When the tender period ends
    Then the tender status is "active.qualification"
    And the tender has an auction period and an auction URL
    And the auction period starts and ends when the tender period ends
    And the auction's page answers
    And the tender has a pending award for the lowest bid
