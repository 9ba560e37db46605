@refusals
Feature: Every write refuses the wrong credentials and changes nothing
  Authentication rule 2: changes under a tender need the tender token, and a bid's changes and
  private reads (the bid, its documents) need the bid token. Every write endpoint is tried with no token, a wrong token
  and another object's token. The response to a refusal is not stated beyond being an error, so
  any 4xx in the error envelope will do; what matters is that reading back the object, and the
  tender that holds it, shows that nothing changed. That a token works only for the broker it
  was handed to is upstream's rule, not the spec's (the spec knows the token alone), so those
  attempts are advisory.

  @spec @auth-2 @ep-patch @state-publish
  Scenario: Publishing a draft without the tender's own credentials is refused and changes nothing
    Given the owner has created a draft tender
    Then every attempt to publish the tender with these credentials is refused and reading back shows nothing changed:
      | credential                             |
      | no token                               |
      | a wrong token                          |
      | another tender's token                 |

  @spec @auth-2
  Scenario Outline: An attempt to <write> without the tender's own credentials is refused and changes nothing
    Given the owner has published a tender
    And the owner has uploaded a PDF document to the tender
    And a participant has asked a question about the tender
    Then every attempt to <write> with these credentials is refused and reading back shows nothing changed:
      | credential                             |
      | no token                               |
      | a wrong token                          |
      | another tender's token                 |

    @ep-patch
    Examples: tender changes
      | write             |
      | change the tender |

    @ep-doc-post
    Examples: tender document uploads
      | write                    |
      | upload a tender document |

    @ep-doc-put
    Examples: tender document new versions
      | write                       |
      | replace the tender document |

    @ep-doc-patch
    Examples: tender document metadata
      | write                        |
      | describe the tender document |

    @ep-q-patch
    Examples: answers
      | write               |
      | answer the question |

  @spec @auth-2 @ep-bid-patch @ep-biddoc-post @ep-bid-get @ep-biddoc-list @clock @serial
  Scenario: A bid's writes and its private reads refuse every token but the bid's own
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    And a bidder has registered a draft bid
    Then each of these attempts is refused and reading back shows nothing changed:
      | write                    | credential                          |
      | activate the bid         | no token                            |
      | activate the bid         | a wrong token                       |
      | activate the bid         | the tender's token                  |
      | activate the bid         | another bid's token                 |
      | upload a bid document    | no token                            |
      | upload a bid document    | a wrong token                       |
      | upload a bid document    | the tender's token                  |
      | upload a bid document    | another bid's token                 |
      | read the bid             | no token                            |
      | read the bid             | a wrong token                       |
      | read the bid             | the tender's token                  |
      | read the bid             | another bid's token                 |
      | list the bid documents   | no token                            |
      | list the bid documents   | a wrong token                       |
      | list the bid documents   | the tender's token                  |
      | list the bid documents   | another bid's token                 |
      | change the tender        | the bid's token                     |
      | upload a tender document | the bid's token                     |

  @spec @auth-2 @ep-award-patch @ep-contract-patch @clock @serial
  Scenario: The award and the contract refuse every token but the tender's
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    Then each of these attempts is refused and reading back shows nothing changed:
      | write             | credential                             |
      | confirm the award | no token                               |
      | confirm the award | a wrong token                          |
      | confirm the award | another tender's token                 |
      | confirm the award | the bid's token                        |
    When the owner confirms the award
    Then the response status is 200
    And each of these attempts is refused and reading back shows nothing changed:
      | write               | credential                             |
      | change the contract | no token                               |
      | change the contract | a wrong token                          |
      | change the contract | another tender's token                 |
      | change the contract | the bid's token                        |

  @upstream @auth-2
  Scenario: Publishing a draft refuses its token presented by another broker, and nothing changes
    Given the owner has created a draft tender
    Then every attempt to publish the tender with these credentials is refused and reading back shows nothing changed:
      | credential                             |
      | the tender's token from another broker |

  @upstream @auth-2
  Scenario: The tender's writes refuse its token presented by another broker, and nothing changes
    Given the owner has published a tender
    And the owner has uploaded a PDF document to the tender
    And a participant has asked a question about the tender
    Then each of these attempts is refused and reading back shows nothing changed:
      | write                        | credential                             |
      | change the tender            | the tender's token from another broker |
      | upload a tender document     | the tender's token from another broker |
      | replace the tender document  | the tender's token from another broker |
      | describe the tender document | the tender's token from another broker |
      | answer the question          | the tender's token from another broker |

  @upstream @auth-2 @clock @serial
  Scenario: A bid's writes and private reads refuse its token presented by another broker
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered a draft bid
    Then each of these attempts is refused and reading back shows nothing changed:
      | write                  | credential                          |
      | activate the bid       | the bid's token from another broker |
      | upload a bid document  | the bid's token from another broker |
      | read the bid           | the bid's token from another broker |
      | list the bid documents | the bid's token from another broker |

  @upstream @auth-2 @clock @serial
  Scenario: The award and the contract refuse the tender's token presented by another broker
    Given the owner has published a tender
    And the tender period has started
    And a bidder has registered an active bid
    And the tender has reached the award stage
    Then each of these attempts is refused and reading back shows nothing changed:
      | write             | credential                             |
      | confirm the award | the tender's token from another broker |
    When the owner confirms the award
    Then the response status is 200
    And each of these attempts is refused and reading back shows nothing changed:
      | write               | credential                             |
      | change the contract | the tender's token from another broker |
