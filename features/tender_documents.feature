@tender-documents
Feature: Tender documents
  The owner uploads documents with the tender token as {url, title, hash, format}, replaces a
  file with PUT (same id, same datePublished) and changes metadata with PATCH.

  Background:
    Given the owner has published a tender

  @spec @ep-doc-post @ep-rule-3 @conv-5 @res-document
  Scenario: The owner uploads a PDF document
    When the owner uploads a PDF document to the tender
    Then the response status is 201
    And the response is a JSON data envelope holding an object
    And the Location header ends with the document id
    And the document has the title, hash and format that were sent
    And the response field "data.documentOf" is "tender"
    And the document's url is a full address

  @spec @ep-doc-post @conv-6 @conv-9
  Scenario: A new document has a service-assigned id and its timestamps
    When the owner uploads a PDF document to the tender
    Then the response field "data.id" is a 32-character lowercase hexadecimal identifier
    And every timestamp in the response has a UTC offset and microseconds

  @spec @ep-doc-list
  Scenario: The list shows every document once, in its latest version
    Given the owner has uploaded a PDF document to the tender
    And the owner has uploaded a new version of the document
    When another broker lists the tender documents
    Then the response status is 200
    And the document is listed once, in its latest version

  @spec @ep-doc-get
  Scenario: A single document is read with its previousVersions
    Given the owner has uploaded a PDF document to the tender
    When another broker reads the document
    Then the response status is 200
    And the document has the title, hash and format that were sent
    And the response field "data.previousVersions" is an empty list

  @spec @ep-doc-patch
  Scenario: The owner sets the documentType and a description
    Given the owner has uploaded a PDF document to the tender
    When the owner sets the document's documentType to "technicalSpecifications" with a description
    Then the response status is 200
    And the response field "data.documentType" is "technicalSpecifications"
    And the document has the title, hash and format that were sent

  @spec @ep-doc-put @res-document
  Scenario: A new version keeps the id and datePublished and refreshes dateModified
    Given the owner has uploaded a PDF document to the tender
    When the owner uploads a new version of the document
    Then the response status is 200
    And the document keeps its id and datePublished
    And the document's dateModified is refreshed
    And the document has the title, hash and format that were sent

  @spec @ep-get
  Scenario: The tender representation includes its documents
    Given the owner has uploaded a PDF document to the tender
    When another broker reads the tender
    Then the tender shows the document

  @upstream @ep-doc-get
  Scenario: previousVersions holds the replaced version
    Given the owner has uploaded a PDF document to the tender
    And the owner has uploaded a new version of the document
    When an anonymous client reads the document
    Then the document's previousVersions holds the replaced version

  @upstream @ep-doc-post
  Scenario: A tender document's address is signed
    When the owner uploads a PDF document to the tender
    Then the document's url carries a Signature and a KeyID

  @upstream @ep-doc-post
  Scenario: A malformed hash is refused
    When the owner uploads a PDF document whose hash is "md5:xyz"
    Then the response is an error 422 at "body" named "hash"
