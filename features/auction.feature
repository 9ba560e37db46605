@auction
Feature: Auction
  With two bids the tender enters the auction stage when the tender period ends. It then shows
  an auctionPeriod and an auctionUrl, and each bid reads its own participationUrl with its token.

  Background:
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And a second bidder has registered an active bid

  @spec @state-auction @clock @serial
  Scenario: The tender in the auction shows an auction period and an auction address
    When the tender period ends
    Then the tender status is "active.auction"
    And the tender has an auction period and an auction URL

  @spec @ep-bid-get @res-participation @clock @serial
  Scenario: Each bid reads its own participation address
    Given the tender period has ended
    When each bidder reads its bid with its token
    Then each participationUrl is the auction URL with key_for_bid set to its bid id

  @upstream @clock @serial
  Scenario: The auction ends with a pending award for the lowest bid
    Given the tender period has ended
    When the auction ends
    Then the tender status is "active.qualification"
    And the tender has a pending award for the lowest bid

  @upstream @clock @serial
  Scenario: Bids stay hidden in the tender during the auction
    Given the tender period has ended
    When an anonymous client reads the tender
    Then the tender status is "active.auction"
    And the response field "data.bids" is absent
