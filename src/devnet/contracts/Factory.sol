// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @title Child: the contract the Factory deploys.
contract Child {
    address public immutable factory;
    uint256 public immutable tag;

    constructor(uint256 tag_) payable {
        factory = msg.sender;
        tag = tag_;
    }
}

/// @title Factory: deploys Child with CREATE and with CREATE2.
/// @notice The CREATE2 address is keccak256(0xff ++ factory ++ salt ++ keccak256(Child.creationCode ++ abi.encode(tag)))[12:].
contract Factory {
    event ChildCreated(address indexed child, uint256 tag, bool create2, bytes32 salt);

    function create(uint256 tag) external payable returns (address child) {
        child = address(new Child{value: msg.value}(tag));
        emit ChildCreated(child, tag, false, bytes32(0));
    }

    function create2(bytes32 salt, uint256 tag) external payable returns (address child) {
        child = address(new Child{salt: salt, value: msg.value}(tag));
        emit ChildCreated(child, tag, true, salt);
    }

    function computeCreate2Address(bytes32 salt, uint256 tag) external view returns (address) {
        bytes32 initHash = keccak256(abi.encodePacked(type(Child).creationCode, abi.encode(tag)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initHash)))));
    }
}
