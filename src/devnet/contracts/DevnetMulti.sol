// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Burnable} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DevnetMulti: ERC-1155 for the devnet scenario.
/// @notice uri(id) returns the template with the literal `{id}` (ERC-1155 metadata convention);
/// holders (or approved operators) burn via ERC1155Burnable.burn / burnBatch.
contract DevnetMulti is ERC1155, ERC1155Burnable, Ownable {
    constructor(string memory uri_) ERC1155(uri_) Ownable(msg.sender) {}

    function mint(address to, uint256 id, uint256 amount, bytes calldata data) external onlyOwner {
        _mint(to, id, amount, data);
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts, bytes calldata data)
        external
        onlyOwner
    {
        _mintBatch(to, ids, amounts, data);
    }

    function setURI(string calldata uri_) external onlyOwner {
        _setURI(uri_);
    }
}
