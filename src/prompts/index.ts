/** Prompt wrappers: how a question is put to a model (data in wrappers/*.yaml). */
export { DEFAULT_WRAPPER_ID, listWrappers, loadWrapper, renderMessages, wrappersDir, type PromptWrapper } from "./PromptWrapper.js";
