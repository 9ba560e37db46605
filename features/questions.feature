@questions
Feature: Questions
  An interested party asks a question without a token while the tender is in active.enquiries;
  the owner answers it with the tender token. The author is returned on creation and hidden on
  reads and on the answer.

  @spec @ep-q-post @auth-3 @phase-questions @conv-5 @conv-9 @res-question-author
  Scenario: A participant asks a question without a token
    Given the owner has published a tender
    When a participant asks a question about the tender
    Then the response status is 201
    And the Location header is the full address of the created object
    And the Location header ends with the question id
    And the question shows its author
    And the response field "data.questionOf" is "tender"
    And the response field "data.id" is a 32-character lowercase hexadecimal identifier

  @spec @ep-q-list @res-question-author
  Scenario: The questions are listed without their authors
    Given the owner has published a tender
    And a participant has asked a question about the tender
    When another broker lists the questions
    Then the response status is 200
    And the question is listed
    And no listed question shows its author

  @spec @ep-q-get @res-question-author
  Scenario: A single question is read without its author
    Given the owner has published a tender
    And a participant has asked a question about the tender
    When another broker reads the question
    Then the response status is 200
    And the response field "data.title" is the question's title
    And the question does not show its author

  @spec @ep-q-patch @auth-2 @res-question-author
  Scenario: The owner answers a question with the tender token
    Given the owner has published a tender
    And a participant has asked a question about the tender
    When the owner answers the question
    Then the response status is 200
    And the question carries the answer that was sent
    And the question does not show its author

  @spec @ep-get @ep-q-patch
  Scenario: The tender representation includes the answered question
    Given the owner has published a tender
    And a participant has asked a question about the tender
    And the owner has answered the question
    When another broker reads the tender
    Then the tender shows the question with its answer

  @spec @res-question-author @clock @serial
  Scenario: Question authors stay hidden on the tender once the tendering has begun
    Given the owner has published a tender
    And a participant has asked a question about the tender
    And the tender period has started
    When another broker reads the tender
    Then no question of the tender shows its author

  @spec @phase-questions
  Scenario: A question about a draft is refused
    Given the owner has created a draft tender
    When a participant asks a question about the tender
    Then the request is refused with an error

  @spec @phase-questions @clock @serial
  Scenario: A question after the enquiry period is refused
    Given the owner has published a tender
    And the enquiry period has ended
    When a participant asks a question about the tender
    Then the request is refused with an error

  @upstream @phase-questions @clock @serial
  Scenario: A late question is refused with upstream's message
    Given the owner has published a tender
    And the enquiry period has ended
    When a participant asks a question about the tender
    Then the response is an error 403 at "body" named "data" saying "Can add question only in enquiryPeriod"

  @upstream @clock @serial
  Scenario: An answer after the enquiry period is refused
    Given the owner has published a tender
    And a participant has asked a question about the tender
    And the enquiry period has ended
    When the owner answers the question
    Then the response is an error 403 at "body" named "data" saying "Can't update question in current (active.tendering) tender status"

  @upstream
  Scenario: An anonymous question is refused
    Given the owner has published a tender
    When an anonymous client asks a question about the tender
    Then the response is an error 403 at "url" named "permission" saying "Forbidden"
