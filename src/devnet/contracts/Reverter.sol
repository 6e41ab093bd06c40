// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Reverter: every call to fail() reverts with a reason string.
contract Reverter {
    string public constant REASON = "Reverter: always reverts";

    uint256 public attempts;

    function fail() external {
        attempts += 1; // state change that the revert undoes
        revert(REASON);
    }
}
