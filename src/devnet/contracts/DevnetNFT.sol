// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title DevnetNFT: ERC-721 for the devnet scenario.
/// @notice tokenURI(id) is the per-token URI when one was set at mint (e.g. a
/// `data:application/json;base64,...` URI), otherwise baseURI + id. The base URI is settable by
/// the owner so a test can point it at a local http server.
contract DevnetNFT is ERC721, ERC721Burnable, Ownable {
    string private _base;
    mapping(uint256 tokenId => string) private _tokenURIs;

    event BaseURIChanged(string baseURI);

    constructor(string memory name_, string memory symbol_, string memory baseURI_)
        ERC721(name_, symbol_)
        Ownable(msg.sender)
    {
        _base = baseURI_;
    }

    function mint(address to, uint256 tokenId) external onlyOwner {
        _safeMint(to, tokenId);
    }

    function mintWithURI(address to, uint256 tokenId, string calldata uri) external onlyOwner {
        _tokenURIs[tokenId] = uri;
        _safeMint(to, tokenId);
    }

    function setBaseURI(string calldata baseURI_) external onlyOwner {
        _base = baseURI_;
        emit BaseURIChanged(baseURI_);
    }

    function baseURI() external view returns (string memory) {
        return _base;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory own = _tokenURIs[tokenId];
        if (bytes(own).length > 0) return own;
        return super.tokenURI(tokenId);
    }

    function _baseURI() internal view override returns (string memory) {
        return _base;
    }
}
