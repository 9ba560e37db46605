@upstream @documents
Feature: The document service
  Files go to the document service at the target's root (POST /upload, POST /register then
  POST /upload/<key>) and are registered with the API by their signed address, or are sent to
  a document endpoint of the API as multipart. Every address the API shows serves the same
  bytes. A target without a document service is reported as not offering it.

  Background:
    Given the owner has published a tender

  Scenario: A file uploaded to the document service is read back from the tender's document
    Given the owner has uploaded a file to the document service
    When the owner registers the file's address as a tender document
    Then the response status is 201
    And the document's url carries a Signature and a KeyID
    And the document's address serves the uploaded bytes

  Scenario: A registered upload with other content is refused
    When the owner registers a hash with the document service
    And the owner uploads other content to the registered address
    Then the response is an error 403 at "body" named "file"

  Scenario: A forged signature is refused by the document service
    Given the owner has uploaded a file to the document service
    When an anonymous client downloads the file with a forged signature
    Then the response is an error 403 at "url" named "Signature"

  Scenario: A forged signature is refused by the API
    Given the owner has uploaded a file to the document service
    When the owner registers the file's address with a forged signature as a tender document
    Then the response is an error 422 at "body" named "url"

  @clock @serial
  Scenario: A hidden bid document's download address redirects its bidder to the file
    Given the tender period has started
    And a bidder has registered a draft bid
    When the bidder sends a file as a bid document
    Then the response status is 201
    And the bid document's download address redirects the bidder to the file
