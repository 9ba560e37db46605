@single-phase
Feature: Single-phase creation, service-set fields and test mode
  A tender created without a status is published at once. The service fills in the fixed
  procurement fields, the periods' start dates and the owner. In test mode every title
  carries its prefix in every response.

  @spec @state-single @ep-create @ep-rule-1 @ver-2
  Scenario: A tender created without a status starts in active.enquiries
    When the owner creates a tender in one request
    Then the response status is 201
    And the response carries an access token
    And the tender status is "active.enquiries"
    And the tender's next_check is the end of the enquiry period

  @spec @state-single @ep-list
  Scenario: A tender created in one request appears in the list
    Given the owner has created a tender in one request
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is listed

  @spec @res-tender @auth-1
  Scenario: The service sets the fixed procurement fields and the owner
    When the owner creates a tender in one request
    Then the response field "data.procurementMethodType" is "belowThreshold"
    And the response field "data.procurementMethod" is "open"
    And the response field "data.awardCriteria" is "lowestCost"
    And the response field "data.submissionMethod" is "electronicAuction"
    And the tender owner is the owner broker
    And the tenderID has the form UA-YYYY-MM-DD-NNNNNN

  @spec @res-periods
  Scenario: The enquiry period starts at creation and the tender period at the enquiry end
    When the owner creates a tender in one request
    Then the response status is 201
    And the enquiry period starts at the moment of creation
    And the tender period starts when the enquiry period ends

  @spec @res-value
  Scenario: valueAddedTaxIncluded is true when it is not sent
    When the owner creates a draft tender without the VAT flags
    Then the response status is 201
    And the response field "data.value.valueAddedTaxIncluded" is "true"

  @spec @res-guarantee @ep-patch
  Scenario: A guarantee in another currency can be set later
    Given the owner has published a tender
    When the owner sets a guarantee of 15000 USD
    Then the response status is 200
    And the guarantee is 15000 USD
    And the response field "data.value.currency" is "UAH"

  @spec @ep-patch
  Scenario: The owner extends the tender period during enquiries
    Given the owner has published a tender
    When the owner extends the tender period by one day
    Then the response status is 200
    And the tender period ends one day later than before

  @spec @ep-rule-2 @ep-create
  Scenario: Test mode prefixes every title in the creation response
    When the owner creates a tender in test mode
    Then the response status is 201
    And the response field "data.mode" is "test"
    And the tender's title starts with "[ТЕСТУВАННЯ] "
    And the tender's title_en starts with "[TESTING] "
    And the tender's title_ru starts with "[ТЕСТИРОВАНИЕ] "

  @spec @ep-rule-2 @ep-get
  Scenario: Test-mode prefixes stay on reads
    Given the owner has created a tender in test mode
    When another broker reads the tender
    Then the tender's title starts with "[ТЕСТУВАННЯ] "
    And the tender's title_en starts with "[TESTING] "
    And the tender's title_ru starts with "[ТЕСТИРОВАНИЕ] "

  @spec @ep-rule-2 @clock @serial
  Scenario: Test-mode prefixes stay once the tendering has begun
    Given the owner has created a tender in test mode
    When the tender period starts
    Then the tender status is "active.tendering"
    And the tender's title starts with "[ТЕСТУВАННЯ] "
    And the tender's title_en starts with "[TESTING] "
    And the tender's title_ru starts with "[ТЕСТИРОВАНИЕ] "

  @spec @ep-rule-2 @ep-patch
  Scenario: A changed title in test mode gets its prefix back
    Given the owner has created a tender in test mode
    When the owner changes the tender title
    Then the response status is 200
    And the tender's title starts with "[ТЕСТУВАННЯ] "

  @spec @ep-rule-2 @ep-rule-1
  Scenario: A draft in test mode keeps its prefixes when published
    Given the owner has created a draft tender in test mode
    When the owner publishes the draft tender
    Then the response status is 200
    And the tender's title starts with "[ТЕСТУВАННЯ] "
    And the tender's title_en starts with "[TESTING] "

  @spec @state-single @ep-list
  Scenario: A tender in test mode is listed once published
    Given the owner has created a tender in test mode
    When an anonymous client pages through the tender list from the tender's creation
    Then the tender is listed

  @upstream @ep-rule-2
  Scenario: Test mode adds the English and Russian titles even when they are not sent
    When the owner creates a tender in test mode without its English and Russian titles
    Then the response status is 201
    And the tender's title_en starts with "[TESTING] "
    And the tender's title_ru starts with "[ТЕСТИРОВАНИЕ] "
