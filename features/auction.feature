@auction
Feature: Auction
  With two bids the tender enters the auction stage when the tender period ends, as upstream's
  did (the spec does not say what moves a tender there). It then shows an auctionPeriod and an
  auctionUrl (the spec's statement, which the checks applied to every exchange hold every tender
  in active.auction to), and each bid reads its own participationUrl with its token.

  The auction is held live, as upstream's auction service held it: after a pause, three rounds
  in which each bidder in turn, the dearest first, may lower its price to at most its own amount
  less the minimal step (not the leader's); a post stays private until its turn ends, the last
  one counts, -1 withdraws it; the lowest price (by the normalised price where features weigh) is
  awarded. The live scenarios drive the JSON interface beside the auction's page through each
  bidder's participationUrl (`…/state`, `…/bids`). On an accelerated sandbox a scenario that holds
  no live auction asks for "quick(mode:fast-forward)"; one tagged @live-auction holds it at its
  real length, which a run without a clock control API waits for only within its budget.

  Rule: Two sealed bids take the tender into its auction

    Background:
      Given the owner has published a tender
      And the tender period has started
      And a bidder has registered an active bid
      And a second bidder has registered an active bid

    @upstream @state-auction @clock @serial @live-auction
    Scenario: The tender in the auction shows an auction period and an auction address
      When the tender period ends
      Then the tender status is "active.auction"
      And the tender has an auction period and an auction URL

    @spec @ep-bid-get @res-participation @clock @serial @live-auction
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

    @upstream @clock @serial @live-auction
    Scenario: Bids stay hidden in the tender during the auction
      Given the tender period has ended
      When an anonymous client reads the tender
      Then the tender status is "active.auction"
      And the response field "data.bids" is absent

  Rule: Bidders lower their prices in rounds, each in its own turn

    Background:
      Given the owner has published a tender
      And the tender period has started
      And a bidder has registered an active bid at 95% of the tender's value
      And a second bidder has registered an active bid at 90% of the tender's value
      And the tender period has ended

    @upstream @clock @serial @live-auction
    Scenario: The dearer bidder lowers its price in round 1 and is awarded at it
      When the auction reaches the first bidder's turn in round 1
      And the first bidder bids 88% of the tender's value in the auction
      Then the response status is 200
      When the auction ends
      Then the tender status is "active.qualification"
      And the pending award is for the first bidder at 88% of the tender's value

    @upstream @clock @serial @live-auction
    Scenario: A post before the bidding, out of turn, above the limit or without an amount is refused and changes nothing
      When the first bidder bids 88% of the tender's value in the auction
      Then the response is an error 403 at "body" named "bid" saying "Stage not for bidding"
      When the auction reaches the first bidder's turn in round 1
      And the second bidder bids 85% of the tender's value in the auction
      Then the response is an error 403 at "body" named "bid" saying "Not valid bidder"
      When the first bidder bids 95% of the tender's value in the auction
      Then the response is an error 422 at "body" named "bid" saying "Too high value"
      When the first bidder posts a bid without an amount in the auction
      Then the response is an error 422 at "body" named "bid" saying "Bid amount is required"
      When the first bidder bids 88% of the tender's value with the secret of its participation address changed
      Then the response is an error 403 at "url" named "permission"
      When the auction reaches the second bidder's turn in round 1
      Then the auction shows the first bidder's round 1 amount as 95% of the tender's value

    @upstream @clock @serial @live-auction
    Scenario: A post stays private until its turn ends, and a withdrawn post leaves the amount
      When the auction reaches the first bidder's turn in round 1
      And the first bidder bids 88% of the tender's value in the auction
      Then the response status is 200
      And the auction does not show the first bidder's round 1 amount yet
      When the first bidder bids 86% of the tender's value in the auction
      And the first bidder cancels its bid in the auction
      Then the response status is 200
      When the auction reaches the second bidder's turn in round 1
      Then the auction shows the first bidder's round 1 amount as 95% of the tender's value
      When the auction ends
      Then the pending award is for the second bidder at 90% of the tender's value

    @upstream @clock @serial @live-auction
    Scenario: A bidder may post above the leader's amount less the step, within its own limit
      When the auction reaches the first bidder's turn in round 1
      Then 92% of the tender's value lies above the leader's amount less the minimal step and within the first bidder's own limit
      When the first bidder bids 92% of the tender's value in the auction
      Then the response status is 200
      When the auction reaches the second bidder's turn in round 1
      Then the auction shows the first bidder's round 1 amount as 92% of the tender's value
      When the auction ends
      Then the pending award is for the second bidder at 90% of the tender's value

  Rule: Features weigh on the order by the normalised price

    @upstream @clock @serial @live-auction
    Scenario: A feature's answer puts the dearer sealed bid ahead and wins it the award
      Given the owner has published a tender with a tenderer feature worth up to 0.1
      And the tender period has started
      And a bidder has registered an active bid at 95% of the tender's value, answering the feature with 0.1
      And a second bidder has registered an active bid at 90% of the tender's value, answering the feature with 0
      When the tender period ends
      Then in round 1 of the auction the second bidder takes its turn before the first bidder
      When the auction ends
      Then the pending award is for the first bidder at 95% of the tender's value

  Rule: A tender divided into lots holds one auction per lot

    @upstream @lots @clock @serial @live-auction
    Scenario: Each lot's auction is bid in on its own and awarded on its own result
      Given the owner has published a tender with 2 lots
      And the tender period has started
      And a bidder has registered an active bid at 95% of the value of every lot
      And a second bidder has registered an active bid at 90% of the value of every lot
      When the tender period ends
      Then each lot has a live auction of its own with 2 bidders
      When the auction of lot 2 reaches the first bidder's turn in round 1
      And the first bidder bids 85% of the lot's value in the auction of lot 2
      Then the response status is 200
      When the auction ends
      Then the pending award of lot 1 is for the second bidder at 90% of the lot's value
      And the pending award of lot 2 is for the first bidder at 85% of the lot's value
