// SPDX-License-Identifier: MIT
// Deployed to the devnet and verified through the explorer's /api by test/hardhat-verify.test.ts.
pragma solidity ^0.8.20;

contract HardhatGreeter {
    string public greeting;
    address public immutable owner;

    event Greeted(address indexed by, string greeting);

    constructor(string memory initial) {
        greeting = initial;
        owner = msg.sender;
    }

    function setGreeting(string calldata next) external {
        greeting = next;
        emit Greeted(msg.sender, next);
    }
}
